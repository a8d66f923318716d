import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket

/// OpenAI's Realtime API for transcription at `GET /v1/realtime?intent=transcription`: one
/// ``RealtimeStream`` per WebSocket, admitted by the session core like every other protocol.
///
/// The upgrade passes the same token and Origin policy as every WebSocket (see
/// ``ConnectionGate``). Only transcription sessions are served: a WebSocket without
/// `intent=transcription` gets an `error` event naming the fix and the close 1008, and a plain
/// `GET /v1/realtime` is answered 400 with OpenAI's error body.
struct RealtimeController: Sendable {
  let core: SessionCore

  /// The path, without its leading slash (as Hummingbird's routes take it).
  static let path = "v1/realtime"

  func addWebSocketRoutes(to router: Router<ServerRequestContext>) {
    router.ws(RouterPath(stringLiteral: Self.path)) { _, _ in
      .upgrade([:])
    } onUpgrade: { inbound, outbound, context in
      let requestContext = context.requestContext
      requestContext.releaseWebSocketHandler()
      let stream = await RealtimeStream(core: core, client: RequestClient(requestContext))
      let intent = context.request.uri.queryParameters.get("intent")
      guard intent == "transcription" else {
        // Hummingbird answers an upgrade it refuses with an empty 400: the session is opened
        // instead, to say what to fix in an error event and the close.
        try await stream.refuse(inbound: inbound, outbound: outbound, intent: intent)
        return
      }
      try await stream.run(inbound: inbound, outbound: outbound)
    }
  }

  /// The HTTP route: what a request that is not a transcription session's upgrade gets.
  func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
    router.get(RouterPath(stringLiteral: Self.path)) { _, _ in
      let path = "/" + Self.path
      return Refusal(
        .webSocketRequired(path: path, upgrade: path + "?intent=transcription"), path: path
      ).response
    }
  }
}
