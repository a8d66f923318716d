import HummingbirdWebSocket
import NIOWebSocket

/// Refuses data frames a client sent unmasked: RFC 6455 (section 5.1) requires every frame from
/// a client to be masked and the server to close the connection with 1002 (protocol error) when
/// one is not. NIO's frame decoder accepts them. ``OversizedFrameHandler`` answers them first,
/// in the shape of the protocol on the path; this check, a WebSocket extension applied to every
/// connection without negotiation, is the backstop for frames read before that handler was
/// added, and closes with a bare 1002.
struct MaskedFramesOnly: WebSocketExtension {
  let name = "transcribe-masked-frames-only"

  func processReceivedFrame(
    _ frame: WebSocketFrame, context: WebSocketExtensionContext
  ) async throws -> WebSocketFrame {
    // swift-websocket closes with 1002 for the protocol errors NIO names; an unmasked frame is
    // one, though NIO has no name of its own for it.
    guard frame.maskKey != nil else { throw NIOWebSocketError.fragmentedControlFrame }
    return frame
  }

  func processFrameToSend(
    _ frame: WebSocketFrame, context: WebSocketExtensionContext
  ) async throws -> WebSocketFrame {
    frame
  }

  func shutdown() async {}
}
