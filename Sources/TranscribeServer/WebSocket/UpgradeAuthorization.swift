import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

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
  typealias Value = HTTP1WebSocketUpgradeChannel.Value

  let upgradeChannel: HTTP1WebSocketUpgradeChannel
  let server: TranscriptionServer

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    upgradeChannel.setup(channel: channel, logger: logger).flatMapThrowing { value in
      let operations = channel.pipeline.syncOperations
      let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
      try operations.addHandler(
        UpgradeTokenHandler(server: server), position: .after(decoder))
      try operations.addHandler(
        ClientConnectionHandler(connection: ClientConnection()), position: .first)
      return value
    }
  }

  func handle(value: Value, logger: Logger) async {
    await upgradeChannel.handle(value: value, logger: logger)
  }
}

extension HTTPServerBuilder {
  /// HTTP/1 with the WebSocket upgrade, upgrades without the server's token refused with 401.
  static func http1WebSocketUpgrade(
    webSocketRouter: Router<ServerRequestContext>,
    configuration: HTTP1WebSocketUpgradeChannel.Configuration,
    authorizingWith server: TranscriptionServer
  ) -> HTTPServerBuilder {
    let webSocketResponder = webSocketRouter.buildResponder()
    return HTTPServerBuilder { responder in
      AuthorizingUpgradeChannel(
        upgradeChannel: HTTP1WebSocketUpgradeChannel(
          responder: responder, webSocketResponder: webSocketResponder,
          configuration: configuration),
        server: server)
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

  private let server: TranscriptionServer
  private var isRefusing = false
  private var isFirstRequest = true

  init(server: TranscriptionServer) {
    self.server = server
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !isRefusing else { return }
    let part = unwrapInboundIn(data)
    guard case .head(let head) = part else {
      context.fireChannelRead(data)
      return
    }
    let isFirstRequest = self.isFirstRequest
    self.isFirstRequest = false
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
    let origin = head.headers["origin"].first
    guard server.originCheck.allows(origin: origin, host: head.headers["host"].first) else {
      server.reject(
        .origin, endpoint: path,
        remoteAddress: context.channel.remoteAddress.flatMap(ServerRequestContext.describe))
      let refusal = OriginCheck.refusal(path: path, origin: origin ?? "")
      refuse(.forbidden, contentType: refusal.contentType, body: refusal.body, context: context)
      return
    }
    guard server.authorizes(uri: head.uri, authorization: head.headers["authorization"].first)
    else {
      server.reject(
        .unauthorized, endpoint: path,
        remoteAddress: context.channel.remoteAddress.flatMap(ServerRequestContext.describe))
      let refusal = TokenCheck.refusal(path: path)
      refuse(
        .unauthorized, contentType: refusal.contentType, body: refusal.body,
        headers: [("WWW-Authenticate", "Bearer")], context: context)
      return
    }
    guard isFirstRequest else {
      // The upgrade handler has left after the first request; the HTTP routes would answer
      // this one as a plain GET.
      refuse(
        .badRequest, contentType: "text/plain; charset=utf-8",
        body: "A WebSocket upgrade must be the first request of its connection: open a new "
          + "connection for the stream.\n", context: context)
      return
    }
    // The upgrade handler, next in the pipeline, takes the connection from here.
    context.fireChannelRead(data)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }

  /// Answers with `status` and closes the connection.
  private func refuse(
    _ status: HTTPResponseStatus, contentType: String, body text: String,
    headers extra: [(String, String)] = [], context: ChannelHandlerContext
  ) {
    isRefusing = true
    let body = ByteBuffer(string: text)
    var headers = HTTPHeaders(extra)
    headers.add(name: "Content-Type", value: contentType)
    headers.add(name: "Content-Length", value: String(body.readableBytes))
    headers.add(name: "Connection", value: "close")
    context.write(
      wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
      promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      channel.close(promise: nil)
    }
  }
}
