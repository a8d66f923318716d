import Hummingbird

/// The live-captions page (`GET /`) and the health checks (`GET /healthz`, `GET /readyz`):
/// none needs a token.
///
/// A WebSocket upgrade on `/` is the stream and never reaches these routes; a plain `GET /`
/// gets the page.
struct WebController: Sendable {
  let page: CaptionsPage
  let readinessReport: @Sendable () -> ReadinessReport

  init(core: SessionCore) {
    page = CaptionsPage(configuration: core.configuration)
    readinessReport = core.readinessReport
  }

  func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
    router.get("/") { _, _ in
      page.response()
    }
    router.get("healthz") { _, _ in
      "ok\n"
    }
    router.get("readyz") { _, _ in
      try readinessReport().response()
    }
  }
}
