import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// The HTTP/1 channel with the WebSocket upgrade, answering upgrade requests that lack the token
/// with 401 before the upgrade is negotiated.
///
/// hummingbird-websocket answers every declined upgrade with 400, and never passes it to the
/// HTTP routes; clients (and the vosk protocol's users) expect 401 for a missing token. So a
/// small handler sits right after the HTTP decoder and answers an upgrade without the token with
/// 401, and an upgrade that is not the connection's first request (which the routes would take
/// for a plain `GET`) with 400; it steps out of the pipeline when a connection is upgraded. It
/// also puts a ``ClientConnectionHandler`` first in the pipeline, so sessions notice a client
/// that leaves.
struct AuthorizingUpgradeChannel: ServerChildChannel {
  /// The upgrade's result, and whether the server closed the connection itself.
  struct Value: ServerChildChannelValue {
    let upgrade: HTTP1WebSocketUpgradeChannel.Value
    let closing: ServerClosing

    var channel: any Channel { upgrade.channel }
  }

  let upgradeChannel: HTTP1WebSocketUpgradeChannel
  let gate: ConnectionGate

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let limit = gate.maxConnections
    let isAdmitted = gate.connections.admit(limit: limit)
    if isAdmitted {
      let connections = gate.connections
      channel.closeFuture.whenComplete { _ in connections.release() }
    } else {
      gate.logger.debug(
        "connection turned away",
        metadata: ["reason": "max_connections", "limit": "\(limit)"])
    }
    return upgradeChannel.setup(channel: channel, logger: logger).flatMapThrowing { value in
      let operations = channel.pipeline.syncOperations
      let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
      let closing = ServerClosing()
      try operations.addHandler(
        UpgradeTokenHandler(gate: gate, closing: closing), position: .after(decoder))
      let connection = ClientConnection()
      try operations.addHandler(
        ClientConnectionHandler(
          connection: connection,
          refusal: isAdmitted
            ? nil : OpenConnections.refusal(limit: limit, retryAfterSeconds: gate.retryAfterSeconds)
        ),
        position: .first)
      // Once upgraded (and before the frames that came with the request are replayed), a frame
      // too large to read gets an error message before its 1009, and a close for unanswered
      // pings is noted.
      let upgrader = try operations.handler(
        type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
      let messageLimit = gate.maxFrameBytes
      let readLimit = gate.frameReadLimit
      upgrader.upgradeResultFuture.whenSuccess { result in
        guard case .websocket = result else { return }
        let operations = channel.pipeline.syncOperations
        guard
          let decoder = try? operations.handler(
            type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
        else { return }
        try? operations.addHandlers(
          [
            OversizedFrameHandler(
              limit: messageLimit, readLimit: readLimit),
            UnansweredPingHandler(connection: connection),
          ],
          position: .after(decoder))
      }
      return Value(upgrade: value, closing: closing)
    }
  }

  func handle(value: Value, logger: Logger) async {
    // A connection the server closed before its request (header deadline, shutdown) ends the
    // upgrade with an error that is nobody's fault on the server: the closing was logged
    // (at info) and counted already.
    let closing = value.closing
    let logger = Logger(label: logger.label) { _ in
      ServerClosingLogHandler(base: logger.handler, closing: closing)
    }
    await upgradeChannel.handle(value: value.upgrade, logger: logger)
  }
}

/// Whether the server itself closed a connection before its first request.
final class ServerClosing: Sendable {
  private let closed = Atomic<Bool>(false)

  var isClosed: Bool { closed.load(ordering: .relaxed) }

  func markClosed() { closed.store(true, ordering: .relaxed) }
}

/// Logs as its base does, but an error about a connection the server closed on purpose (see
/// ``ServerClosing``) at debug level.
struct ServerClosingLogHandler: LogHandler {
  var base: any LogHandler
  let closing: ServerClosing

  var metadata: Logger.Metadata {
    get { base.metadata }
    set { base.metadata = newValue }
  }

  var logLevel: Logger.Level {
    get { base.logLevel }
    set { base.logLevel = newValue }
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { base[metadataKey: key] }
    set { base[metadataKey: key] = newValue }
  }

  func log(event: LogEvent) {
    var event = event
    if event.level >= .error, closing.isClosed { event.level = .debug }
    guard event.level >= base.logLevel else { return }
    base.log(event: event)
  }
}

extension HTTPServerBuilder {
  /// HTTP/1 with the WebSocket upgrade, each connection past `gate` (upgrades without the
  /// server's token refused with 401).
  static func http1WebSocketUpgrade(
    webSocketRouter: Router<ServerRequestContext>,
    configuration: HTTP1WebSocketUpgradeChannel.Configuration,
    gate: ConnectionGate
  ) -> HTTPServerBuilder {
    let webSocketResponder = webSocketRouter.buildResponder()
    return HTTPServerBuilder { responder in
      AuthorizingUpgradeChannel(
        upgradeChannel: HTTP1WebSocketUpgradeChannel(
          responder: responder, webSocketResponder: webSocketResponder,
          configuration: configuration),
        gate: gate)
    }
  }
}

/// What a connection must pass before a request reaches the routes: the connection limit, and
/// for a WebSocket upgrade (which never reaches the HTTP routes and their middleware) the
/// origin and token policies, refusals counted and logged by the session core.
struct ConnectionGate: Sendable {
  let tokenCheck: TokenCheck
  let originCheck: OriginCheck
  let connections: OpenConnections
  let maxConnections: Int
  /// What a 503 asks the client to wait (``ServerConfiguration/retryAfterSeconds``).
  let retryAfterSeconds: Int
  let requestHeaderTimeout: Duration
  /// The longest request target read (``ServerConfiguration/maxRequestTargetBytes``).
  let maxRequestTargetBytes: Int
  /// The largest message a stream reads (``ServerConfiguration/maxFrameBytes``).
  let maxFrameBytes: Int
  /// The largest frame read at all (``ServerConfiguration/frameReadLimit``).
  let frameReadLimit: Int
  let logger: Logger
  /// Counts and logs a refusal.
  let reject:
    @Sendable (_ reason: SessionRejection, _ path: String, _ remoteAddress: String?) -> Void
  /// Counts and logs a connection closed before its request.
  let close: @Sendable (_ reason: ConnectionClosure, _ remoteAddress: String?) -> Void

  init(_ core: SessionCore) {
    tokenCheck = core.tokenCheck
    originCheck = core.originCheck
    connections = core.connections
    maxConnections = core.configuration.maxConnections
    retryAfterSeconds = core.configuration.retryAfterSeconds
    requestHeaderTimeout = core.configuration.requestHeaderTimeout
    maxRequestTargetBytes = core.configuration.maxRequestTargetBytes
    maxFrameBytes = core.configuration.maxFrameBytes
    frameReadLimit = core.configuration.frameReadLimit
    logger = core.logger
    reject = { reason, path, remoteAddress in
      core.reject(reason, endpoint: path, remoteAddress: remoteAddress)
    }
    close = { reason, remoteAddress in
      core.connectionClosed(reason, remoteAddress: remoteAddress)
    }
  }
}

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

/// The answers to requests the server cannot read as HTTP/1.1.
enum MalformedRequest {
  /// The answer to what the HTTP decoder could not read.
  static func answer(to error: HTTPParserError) -> Refusal {
    switch error {
    case .headerOverflow: Refusal(.headersTooLarge)
    case .invalidContentLength, .unexpectedContentLength: Refusal(.invalidContentLength)
    case .invalidVersion: Refusal(.unsupportedHTTPVersion)
    default: Refusal(.unreadable("\(error)"))
    }
  }
}
