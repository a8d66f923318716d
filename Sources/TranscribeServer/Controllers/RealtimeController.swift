import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket

/// OpenAI's Realtime API for transcription at `GET /v1/realtime?intent=transcription`: one
/// ``RealtimeStream`` per WebSocket, admitted by the session core like every other protocol.
///
/// The upgrade passes the same token and Origin policy as every WebSocket (see
/// ``ConnectionGate``). Only transcription sessions are served: an upgrade without
/// `intent=transcription` is not upgraded, and it, like a plain `GET /v1/realtime`, is answered
/// 400 with OpenAI's error body naming the fix.
struct RealtimeController: Sendable {
  let core: SessionCore

  /// The path, without its leading slash (as Hummingbird's routes take it).
  static let path = "v1/realtime"

  func addWebSocketRoutes(to router: Router<ServerRequestContext>) {
    router.ws(RouterPath(stringLiteral: Self.path)) { request, _ in
      Self.isTranscription(request) ? .upgrade([:]) : .dontUpgrade
    } onUpgrade: { inbound, outbound, context in
      let requestContext = context.requestContext
      requestContext.releaseWebSocketHandler()
      try await RealtimeStream(core: core, client: RequestClient(requestContext))
        .run(inbound: inbound, outbound: outbound)
    }
  }

  /// The HTTP route: what a request that is not a transcription session's upgrade gets.
  func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
    router.get(RouterPath(stringLiteral: Self.path)) { request, _ in
      let isUpgrade = request.headers[.upgrade]?.lowercased() == "websocket"
      let message =
        isUpgrade
        ? "This server runs Realtime transcription sessions only: connect to "
          + "/v1/realtime?intent=transcription."
        : "/v1/realtime is a WebSocket endpoint: open a WebSocket to "
          + "/v1/realtime?intent=transcription (this server runs transcription sessions only)."
      let body = OpenAIError.encode(
        OpenAIErrorBody(
          error: .init(
            message: message, type: "invalid_request_error", param: "intent",
            code: isUpgrade ? "invalid_intent" : "websocket_required")))
      return Response(
        status: .badRequest, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: body))
    }
  }

  /// Whether `request` asks for a transcription session.
  static func isTranscription(_ request: Request) -> Bool {
    request.uri.queryParameters.get("intent") == "transcription"
  }
}
