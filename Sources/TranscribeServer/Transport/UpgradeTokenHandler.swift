import Logging
import NIOCore
import NIOHTTP1

/// Answers a WebSocket upgrade request without the token with 401, and one that is not the
/// connection's first request with 400, and closes; lets anything else through, and leaves the
/// pipeline when the connection is upgraded.
final class UpgradeTokenHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let gate: ConnectionGate
  private let closing: ServerClosing
  private var isRefusing = false
  private var isFirstRequest = true
  /// Closes a connection whose first request's headers do not arrive in time (408).
  private var headerTimeout: Scheduled<Void>?

  init(gate: ConnectionGate, closing: ServerClosing) {
    self.gate = gate
    self.closing = closing
  }

  func handlerAdded(context: ChannelHandlerContext) {
    // Later requests are timed by Hummingbird's idle timeout, between requests.
    let timeout = gate.requestHeaderTimeout
    let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
    headerTimeout = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
      bound.value.handler.headersTimedOut(after: timeout, context: bound.value.context)
    }
  }

  private func headersTimedOut(after timeout: Duration, context: ChannelHandlerContext) {
    guard isFirstRequest, !isRefusing else { return }
    closing.markClosed()
    gate.close(
      .headerTimeout, context.channel.remoteAddress.flatMap(ServerRequestContext.describe))
    refuse(Refusal(.headersTooSlow(timeout)), context: context)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    headerTimeout?.cancel()
  }

  /// On graceful shutdown, a connection that has not sent its first request is closed at once,
  /// rather than holding the shutdown up until its header deadline.
  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent, isFirstRequest, !isRefusing {
      isRefusing = true
      headerTimeout?.cancel()
      closing.markClosed()
      gate.close(.shutdown, context.channel.remoteAddress.flatMap(ServerRequestContext.describe))
      context.close(promise: nil)
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !isRefusing else { return }
    let part = unwrapInboundIn(data)
    guard case .head(let head) = part else {
      context.fireChannelRead(data)
      return
    }
    guard head.uri.utf8.count <= gate.maxRequestTargetBytes else {
      let refusal = RequestRefusal.urlTooLong(
        length: head.uri.utf8.count, limit: gate.maxRequestTargetBytes)
      refuse(Refusal(refusal), context: context)
      return
    }
    let isFirstRequest = self.isFirstRequest
    self.isFirstRequest = false
    headerTimeout?.cancel()
    let isUpgrade = head.headers[canonicalForm: "upgrade"].contains {
      $0.lowercased() == "websocket"
    }
    guard isUpgrade else {
      // Stays for the connection's later requests: only the first may be an upgrade.
      context.fireChannelRead(data)
      return
    }
    // The path only: the query may hold a wrong token.
    let path = String(head.uri.prefix { $0 != "?" })
    let remoteAddress = context.channel.remoteAddress.flatMap(ServerRequestContext.describe)
    let originRefusal = gate.originCheck.refusal(
      path: path, origin: head.headers["origin"].first, host: head.headers["host"].first)
    if let refusal = originRefusal {
      gate.reject(.origin, path, remoteAddress)
      refuse(refusal, context: context)
      return
    }
    let tokenRefusal = gate.tokenCheck.refusal(
      uri: head.uri, authorization: head.headers["authorization"].first, acceptsQueryToken: true)
    if let refusal = tokenRefusal {
      gate.reject(.unauthorized, path, remoteAddress)
      refuse(refusal, context: context)
      return
    }
    guard isFirstRequest else {
      // The upgrade handler has left after the first request; the HTTP routes would answer
      // this one as a plain GET.
      refuse(Refusal(.upgradeNotFirst), context: context)
      return
    }
    // The WebSocket layer answers a refused frame in the words of the protocol on this path.
    try? context.pipeline.syncOperations.handler(type: ClientConnectionHandler.self).connection
      .markUpgraded(path: path)
    // The upgrade handler, next in the pipeline, takes the connection from here.
    context.fireChannelRead(data)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }

  /// A request the HTTP decoder cannot read (not HTTP/1, headers past the decoder's limit, a
  /// bad `Content-Length`) gets its status and a sentence, and the connection closes, instead
  /// of the connection staying open with no answer.
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard let error = error as? HTTPParserError, !isRefusing else {
      context.fireErrorCaught(error)
      return
    }
    gate.logger.debug(
      "malformed request",
      metadata: [
        "error": "\(error)",
        "remote": .string(
          context.channel.remoteAddress.flatMap(ServerRequestContext.describe) ?? "unknown"),
      ])
    refuse(MalformedRequest.answer(to: error), context: context)
  }

  /// Answers with `refusal` and closes the connection (on purpose: the upgrade's own error
  /// about it is not logged as one).
  private func refuse(_ refusal: Refusal, context: ChannelHandlerContext) {
    isRefusing = true
    closing.markClosed()
    context.write(wrapOutboundOut(.head(refusal.head)), promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(refusal.body))), promise: nil)
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      channel.close(promise: nil)
    }
  }
}
