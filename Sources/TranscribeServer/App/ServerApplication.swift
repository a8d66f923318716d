import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The application over `core`: the HTTP router and the WebSocket router, each protocol's
/// controller given only what it uses, and the preparation of the recognizers as a service.
func buildApplication(
  _ core: SessionCore, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
  let configuration = core.configuration
  let webSocketRouter = Router(context: ServerRequestContext.self)
  VoskController(core: core).addRoutes(to: webSocketRouter)
  RealtimeController(core: core).addWebSocketRoutes(to: webSocketRouter)
  return Application(
    router: buildRouter(core),
    server: .http1WebSocketUpgrade(
      webSocketRouter: webSocketRouter,
      configuration: HTTP1WebSocketUpgradeChannel.Configuration(
        // Between requests; the first request's headers have their own timeout (see
        // `UpgradeTokenHandler`).
        http1: .init(idleTimeout: TimeAmount(configuration.requestHeaderTimeout)),
        ws: WebSocketServerConfiguration(
          maxFrameSize: configuration.frameReadLimit,
          extensions: [.nonNegotiatedExtension { MaskedFramesOnly() }],
          autoPing: .enabled(timePeriod: configuration.pingInterval))),
      gate: ConnectionGate(core)),
    configuration: .init(
      address: .hostname(configuration.host, port: configuration.port),
      serverName: "transcribe"),
    services: [
      PreparationService(
        prepare: core.recognizers.prepare, readiness: core.readiness, logger: core.logger)
    ],
    onServerRunning: { channel in
      await onServerRunning(channel.localAddress?.port ?? 0)
    },
    logger: core.logger
  )
}

/// The HTTP routes: the cross-cutting policies as middleware (logging, origin; the token on
/// the group of routes that need it), each protocol's controller, and last, the answers for
/// requests no route takes, from the router's own table.
func buildRouter(_ core: SessionCore) -> Router<ServerRequestContext> {
  // HEAD answers as GET without the body, for every GET route.
  let router = Router(context: ServerRequestContext.self, options: .autoGenerateHeadEndpoints)
  router.add(middleware: RequestLoggingMiddleware())
  let originCheck = core.originCheck
  router.add(middleware: PolicyMiddleware(.origin, core: core) { originCheck.refusal(of: $0) })
  WebController(core: core).addRoutes(to: router)
  // Everything but the page and the health checks needs the token, when there is one.
  let tokenCheck = core.tokenCheck
  let protected = router.group()
    .add(middleware: PolicyMiddleware(.unauthorized, core: core) { tokenCheck.refusal(of: $0) })
  MetricsController(metrics: core.metrics).addRoutes(to: protected)
  OpenAIController(core: core).addRoutes(to: protected)
  RealtimeController(core: core).addRoutes(to: protected)
  // Router middleware added now applies only to what no route takes.
  router.add(middleware: UnroutedRequestMiddleware(routes: router.routes))
  return router
}
