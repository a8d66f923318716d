import Foundation
import NIOCore
import NIOWebSocket

/// Answers what the WebSocket layers below the stream would refuse with a bare close, as every
/// other close of a stream is answered: an error message in the stream's protocol that names the
/// problem (where the WebSocket protocol still allows one: vosk's `{"error": …}`, or a Realtime
/// `error` event on `/v1/realtime`), then a close whose reason says it too.
///
/// - A frame too large to read: NIO's frame decoder refuses a frame whose header declares more
///   than the server reads at all (twice the message limit, so the stream itself answers a
///   message just over the limit), and the protocol error handler after it would close with a
///   bare 1009 at once, while the client is still sending the frame, so the client would get a
///   reset and not even the 1009.
/// - A fragmented message that grows past the same size: swift-websocket's message assembly
///   closes with a bare 1009.
/// - Protocol violations (a data frame the client did not mask, a continuation without a
///   message to continue, a new message inside a fragmented one, a reserved bit or opcode, a
///   fragmented or long control frame, a close code a client may not send): a bare 1002
///   otherwise.
///
/// It sits between NIO's decoder and the protocol error handler. After a refusal it reads no
/// more frames, closes after lingering (``ClientConnectionHandler/closeAfterLingering(context:)``)
/// and passes the stream a ``FrameRefusal`` instead of NIO's error, which the protocol error
/// handler leaves alone and the stream's log line names.
final class OversizedFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  /// The documented message limit, in bytes.
  let limit: Int
  /// The largest frame, or fragmented message, read, in bytes.
  let readLimit: Int
  /// The bytes of the fragmented message being received so far; `nil` between messages.
  private var messageBytes: Int?
  /// Whether the stream was refused: nothing more is read.
  private var isRefused = false

  init(limit: Int, readLimit: Int) {
    self.limit = limit
    self.readLimit = readLimit
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !isRefused else { return }
    let frame = unwrapInboundIn(data)
    if let refusal = refusal(of: frame) {
      refuse(refusal, context: context)
      return
    }
    context.fireChannelRead(data)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard !isRefused else { return }
    switch error as? NIOWebSocketError {
    case .invalidFrameLength:
      refuse(.tooLargeToRead(limit: limit, readLimit: readLimit), context: context)
    case .fragmentedControlFrame:
      refuse(.protocolViolation(.fragmentedControlFrame), context: context)
    case .multiByteControlFrameLength:
      refuse(.protocolViolation(.controlFrameTooLong), context: context)
    default:
      context.fireErrorCaught(error)
    }
  }

  /// What is wrong with `frame` as the next frame of the stream, if anything; keeps count of a
  /// fragmented message's size.
  private func refusal(of frame: WebSocketFrame) -> FrameRefusal? {
    // RFC 6455, section 5.1: every frame from a client is masked (``MaskedFramesOnly`` is the
    // backstop for frames read before this handler was added).
    if frame.maskKey == nil, [.text, .binary, .continuation].contains(frame.opcode) {
      return .protocolViolation(.unmasked)
    }
    if frame.rsv1 || frame.rsv2 || frame.rsv3 {
      let bit = frame.rsv1 ? "RSV1" : frame.rsv2 ? "RSV2" : "RSV3"
      return .protocolViolation(.reservedBit(bit))
    }
    switch frame.opcode {
    case .text, .binary:
      guard messageBytes == nil else {
        return .protocolViolation(.messageInsideFragmented)
      }
      if !frame.fin { messageBytes = frame.length }
    case .continuation:
      guard let received = messageBytes else {
        return .protocolViolation(.orphanContinuation)
      }
      let total = received + frame.length
      guard total <= readLimit else { return .tooLargeToRead(limit: limit, readLimit: readLimit) }
      messageBytes = frame.fin ? nil : total
    case .ping, .pong:
      break
    case .connectionClose:
      var payload = frame.unmaskedData
      guard payload.readableBytes != 1 else {
        return .protocolViolation(.oneByteClose, isClosed: true)
      }
      if let code = payload.readInteger(as: UInt16.self), !Self.mayBeSent(closeCode: code) {
        return .protocolViolation(.closeCode(code), isClosed: true)
      }
    default:
      return .protocolViolation(.reservedOpcode(Int(webSocketOpcode: frame.opcode)))
    }
    return nil
  }

  /// Whether an endpoint may send `code` in a close frame (RFC 6455, section 7.4): the defined
  /// codes but those that only report (1005, 1006, 1015), and the registered and private ranges.
  static func mayBeSent(closeCode code: UInt16) -> Bool {
    switch code {
    case 1000...1003, 1007...1014, 3000...4999: true
    default: false
    }
  }

  /// Sends the refusal's error message (unless the client has already closed) and its close,
  /// then closes the connection once the client has had them.
  private func refuse(_ refusal: FrameRefusal, context: ChannelHandlerContext) {
    isRefused = true
    // Noted before anything is written: however soon the stream ends (the client may leave as
    // soon as it has the close, or the server shut down), its log says why.
    let pipeline = context.channel.pipeline
    let connection = try? pipeline.syncOperations.handler(type: ClientConnectionHandler.self)
      .connection
    connection?.markRefused(refusal.description)
    let allocator = context.channel.allocator
    if !refusal.isClosedByClient {
      let message = refusal.message(onPath: connection?.webSocketPath)
      context.write(
        wrapOutboundOut(
          WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(string: message))),
        promise: nil)
    }
    var close = allocator.buffer(capacity: ServerConfiguration.controlFramePayloadBytes)
    close.write(webSocketErrorCode: refusal.closeCode)
    close.writeString(refusal.closeReason)
    let written = context.writeAndFlush(
      wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: close)))
    // The stream learns of the failure only as the connection closes: it would end, and
    // Hummingbird close the connection, while the client is still sending.
    let channel = context.channel
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    written.whenComplete { _ in
      guard
        let watcher = try? pipeline.syncOperations.handler(type: ClientConnectionHandler.self),
        let watcherContext = try? pipeline.syncOperations.context(
          handlerType: ClientConnectionHandler.self)
      else {
        bound.value.fireErrorCaught(refusal)
        return channel.close(promise: nil)
      }
      watcher.closeAfterLingering(context: watcherContext) {
        bound.value.fireErrorCaught(refusal)
      }
    }
  }
}

/// Why the WebSocket layer refused a stream's frames, as the client reads it (the error
/// message and the close's reason) and as the stream's log line says it.
enum FrameRefusal: Error, Equatable, CustomStringConvertible {
  /// A frame, or a fragmented message, larger than the server reads at all.
  case tooLargeToRead(limit: Int, readLimit: Int)
  /// The frames broke the WebSocket protocol; `isClosed` when the client has sent its close.
  case protocolViolation(WebSocketViolation, isClosed: Bool = false)

  var description: String {
    switch self {
    case .tooLargeToRead(let limit, let readLimit):
      SessionProblem.messageTooLarge(bytes: readLimit, limit: limit, isUnread: true).text
    case .protocolViolation(let violation, _):
      RequestRefusal.webSocketProtocolViolation(violation).sentence
    }
  }

  /// The error message a client of the protocol on `path` reads: a Realtime `error` event on
  /// `/v1/realtime`, vosk's `{"error": …}` elsewhere.
  func message(onPath path: String?) -> String {
    guard path == "/" + RealtimeController.path else {
      return VoskReply.error(description).json(configuration: VoskStreamConfiguration())
    }
    let error: RealtimeError
    switch self {
    case .tooLargeToRead(let limit, let readLimit):
      error = .messageTooLarge(bytes: readLimit, limit: limit, isUnread: true)
    case .protocolViolation(let violation, _):
      let refusal = RequestRefusal.webSocketProtocolViolation(violation)
      error = RealtimeError(code: refusal.code, message: refusal.sentence)
    }
    return RealtimeServerEvent.error(error).json(
      eventID: "event_\(UUID().uuidString)", sessionID: "", defaultModel: "")
  }

  /// The close code: 1009 for size, 1002 for the protocol.
  var closeCode: WebSocketErrorCode {
    switch self {
    case .tooLargeToRead: .messageTooLarge
    case .protocolViolation: .protocolError
    }
  }

  /// The close frame's reason: the description, cut to the bytes a close frame holds.
  var closeReason: String { description.closeReason }

  /// Whether the client already closed (the refusal answers its close frame): no message then.
  var isClosedByClient: Bool {
    if case .protocolViolation(_, true) = self { return true }
    return false
  }
}

/// Notes on the connection's ``ClientConnection`` when the server closes a WebSocket while its
/// ping is unanswered (the WebSocket layer's keep-alive giving up on a silent client), so the
/// stream's log says `ping_timeout` rather than that the client closed.
final class UnansweredPingHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame
  typealias OutboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let connection: ClientConnection
  private var isPingUnanswered = false

  init(connection: ClientConnection) {
    self.connection = connection
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if unwrapInboundIn(data).opcode == .pong { isPingUnanswered = false }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data).opcode {
    case .ping: isPingUnanswered = true
    case .connectionClose where isPingUnanswered: connection.markUnresponsive()
    default: break
    }
    context.write(data, promise: promise)
  }
}
