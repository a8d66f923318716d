import NIOCore
import NIOWebSocket

/// Answers a frame too large to read as every other close of a stream is answered.
///
/// NIO's frame decoder refuses a frame whose header declares more than the server reads at all
/// (twice the message limit, so the stream itself answers a message just over the limit), and
/// the protocol error handler after it would close with a bare 1009 at once, while the client is
/// still sending the frame, so the client gets a reset and not even the 1009. This handler sits
/// between the two: it sends the `{"error": …}` message naming the limit and the 1009 close,
/// then closes after lingering (``ClientConnectionHandler/closeAfterLingering(context:)``), and
/// passes the stream a ``FrameTooLargeToRead`` instead of NIO's error, which the protocol error
/// handler leaves alone.
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
    guard let error = error as? NIOWebSocketError, error == .invalidFrameLength else {
      context.fireErrorCaught(error)
      return
    }
    let failure = FrameTooLargeToRead(limit: limit, readLimit: readLimit)
    let message = VoskReply.error(failure.description).json(
      configuration: VoskStreamConfiguration())
    let allocator = context.channel.allocator
    var code = allocator.buffer(capacity: 2)
    code.write(webSocketErrorCode: .messageTooLarge)
    context.write(
      wrapOutboundOut(
        WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(string: message))),
      promise: nil)
    let written = context.writeAndFlush(
      wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)))
    // The stream learns of the failure only as the connection closes: it would end, and
    // Hummingbird close the connection, while the client is still sending.
    let channel = context.channel
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    written.whenComplete { _ in
      let pipeline = channel.pipeline
      guard
        let watcher = try? pipeline.syncOperations.handler(type: ClientConnectionHandler.self),
        let watcherContext = try? pipeline.syncOperations.context(
          handlerType: ClientConnectionHandler.self)
      else {
        bound.value.fireErrorCaught(failure)
        return channel.close(promise: nil)
      }
      watcher.closeAfterLingering(context: watcherContext) {
        bound.value.fireErrorCaught(failure)
      }
    }
  }
}

/// A WebSocket frame larger than the server reads at all, as the stream learns of it (its log
/// says so; the client has had its answer).
struct FrameTooLargeToRead: Error, CustomStringConvertible {
  /// The documented message limit, in bytes.
  let limit: Int
  /// The largest frame read, in bytes.
  let readLimit: Int

  var description: String {
    "a message of more than \(readLimit) bytes is over the limit of \(limit) bytes; send "
      + "smaller chunks"
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
