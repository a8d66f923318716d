import NIOCore
import NIOWebSocket

/// Says why before a frame too large to read closes the stream.
///
/// NIO's frame decoder refuses a frame whose header declares more than the server reads at all
/// (twice the message limit, so the stream itself answers a message just over the limit), and
/// the protocol error handler after it closes with 1009 and nothing else. This handler sits
/// between the two and first sends the `{"error": …}` message every other close of a stream
/// has, naming the limit.
final class OversizedFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  /// The documented message limit, in bytes.
  let limit: Int
  /// The largest frame the decoder reads, in bytes.
  let readLimit: Int

  init(limit: Int, readLimit: Int) {
    self.limit = limit
    self.readLimit = readLimit
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if let error = error as? NIOWebSocketError, error == .invalidFrameLength {
      let message = VoskReply.error(
        "a message of more than \(readLimit) bytes is over the limit of \(limit) bytes; send "
          + "smaller chunks"
      ).json(configuration: VoskStreamConfiguration())
      let frame = WebSocketFrame(
        fin: true, opcode: .text, data: context.channel.allocator.buffer(string: message))
      context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }
    context.fireErrorCaught(error)
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
