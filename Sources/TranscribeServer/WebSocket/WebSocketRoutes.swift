import Hummingbird
import HummingbirdWebSocket

extension TranscriptionServer {
  /// Adds the vosk-protocol WebSocket at `ws://HOST:PORT/` to the router that decides upgrades.
  ///
  /// Only requests that ask for a WebSocket reach this router; a plain `GET /` goes to the HTTP
  /// router. A request without the token is not upgraded (the HTTP router answers it with 401;
  /// see ``addWebSocketAuthorization(to:)``).
  func addWebSocketRoutes(to router: Router<BasicWebSocketRequestContext>) {
    router.ws("/") { request, _ in
      authorizes(request) ? .upgrade([:]) : .dontUpgrade
    } onUpgrade: { inbound, outbound, context in
      try await VoskStream(server: self, logger: context.logger)
        .run(inbound: inbound, outbound: outbound)
    }
  }

  /// Answers WebSocket upgrade requests that lack the token with 401 on the HTTP router. Add it
  /// before every route, so it covers them all.
  func addWebSocketAuthorization(to router: Router<BasicRequestContext>) {
    router.add(middleware: WebSocketAuthorizationMiddleware(server: self))
  }

  /// Whether `request` carries the token (`Authorization: Bearer TOKEN` or `?token=TOKEN`), or
  /// no token is required.
  public func authorizes(_ request: Request) -> Bool {
    guard let token = configuration.token else { return true }
    if let header = request.headers[.authorization], token.matches(authorization: header) {
      return true
    }
    if let query = request.uri.queryParameters.get("token"), token.matches(query) {
      return true
    }
    return false
  }
}

/// Turns away WebSocket upgrade requests without the token with 401, which the upgrade itself
/// cannot do (a declined upgrade falls through to the HTTP routes).
struct WebSocketAuthorizationMiddleware: RouterMiddleware {
  typealias Context = BasicRequestContext
  let server: TranscriptionServer

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let upgrade = request.headers[.upgrade]?.lowercased()
    if upgrade == "websocket", !server.authorizes(request) {
      server.metrics.sessionRejected(reason: "token")
      return Response(
        status: .unauthorized,
        headers: [.wwwAuthenticate: "Bearer", .contentType: "text/plain; charset=utf-8"],
        body: .init(
          byteBuffer: ByteBuffer(
            string: "a token is required: send Authorization: Bearer TOKEN or ?token=TOKEN\n")))
    }
    return try await next(request, context)
  }
}
