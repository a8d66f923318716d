import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket

extension TranscriptionServer {
  /// Adds the vosk-protocol WebSocket at `ws://HOST:PORT/` to the router that decides upgrades.
  ///
  /// Only requests that ask for a WebSocket reach this router; a plain `GET /` goes to the HTTP
  /// router. A request without the token never gets here: it is answered with 401 before the
  /// upgrade (see `AuthorizingUpgradeChannel`).
  func addWebSocketRoutes(to router: Router<ServerRequestContext>) {
    router.ws("/") { request, _ in
      authorizes(request) ? .upgrade([:]) : .dontUpgrade
    } onUpgrade: { inbound, outbound, context in
      let requestContext = context.requestContext
      // The handler has been passed on; the context need not hold it (and itself) any longer.
      requestContext.releaseWebSocketHandler()
      try await VoskStream(
        server: self, logger: requestContext.loggerWithRemoteAddress,
        client: RequestClient(requestContext)
      )
      .run(inbound: inbound, outbound: outbound)
    }
  }

  /// The server's one check of a request's token (see ``TokenCheck``).
  public var tokenCheck: TokenCheck { TokenCheck(token: configuration.token) }

  /// Whether a WebSocket upgrade `request` carries the token (`Authorization: Bearer TOKEN` or
  /// `?token=TOKEN`), or no token is required.
  public func authorizes(_ request: Request) -> Bool {
    authorizes(uri: request.uri.description, authorization: request.headers[.authorization])
  }

  /// Whether a WebSocket upgrade for `uri` with this `Authorization` header value carries the
  /// token.
  func authorizes(uri: String, authorization: String?) -> Bool {
    tokenCheck.authorizes(uri: uri, authorization: authorization, acceptsQueryToken: true)
  }
}
