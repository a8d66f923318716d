import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket

/// vosk-server's WebSocket protocol at `ws://HOST:PORT/`: one ``VoskStream`` per connection,
/// admitted by the session core.
///
/// Only requests that ask for a WebSocket reach this router; a plain `GET /` goes to the HTTP
/// router. A request without the token or from a page that may not use the server never gets
/// here: it is refused before the upgrade (see ``ConnectionGate``).
struct VoskController: Sendable {
  let core: SessionCore

  func addRoutes(to router: Router<ServerRequestContext>) {
    router.ws("/") { _, _ in
      .upgrade([:])
    } onUpgrade: { inbound, outbound, context in
      let requestContext = context.requestContext
      // The handler has been passed on; the context need not hold it (and itself) any longer.
      requestContext.releaseWebSocketHandler()
      try await VoskStream(
        core: core, logger: requestContext.loggerWithRemoteAddress,
        client: RequestClient(requestContext)
      )
      .run(inbound: inbound, outbound: outbound)
    }
  }
}
