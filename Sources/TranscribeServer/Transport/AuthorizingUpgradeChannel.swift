import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

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
