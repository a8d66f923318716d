import Hummingbird

extension TranscriptionServer {
  /// Adds the live-captions page (`GET /`), `GET /readyz` and `GET /metrics` to `router`.
  ///
  /// A WebSocket upgrade on `/` is the stream and never reaches these routes; a plain `GET /`
  /// gets the page. The page, `/healthz` and `/readyz` need no token; `/metrics` does when the
  /// server has one (see ``MetricsEndpoint``).
  func addWebRoutes<Context: RequestContext>(to router: Router<Context>) {
    let page = CaptionsPage(
      tokenRequired: configuration.token != nil,
      finalWait: configuration.streamLimits.finalWait)
    let readiness = self.readiness
    let sessions = self.sessions
    let engines = configuration.engines.map(\.rawValue)
    let metricsEndpoint = MetricsEndpoint(metrics: self.metrics, token: configuration.token)
    router.get("/") { _, _ in
      page.response()
    }
    let areDecodersStuck = self.areDecodersStuck
    router.get("readyz") { _, _ in
      try ReadinessReport(
        readiness: readiness, sessions: sessions, engines: engines,
        decodersStuck: areDecodersStuck()
      ).response()
    }
    router.get("metrics") { request, _ in
      metricsEndpoint.response(to: request)
    }
  }

  /// The service that runs ``prepare`` and marks the server ready; the application runs it.
  var preparationService: PreparationService {
    PreparationService(prepare: prepare, readiness: readiness, logger: logger)
  }
}
