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
/// small handler sits right after the HTTP decoder, looks at the first request of the
/// connection, and either answers 401 and closes, or steps out of the pipeline.
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

/// Answers a WebSocket upgrade request without the token with 401 and closes; lets anything
/// else through and leaves the pipeline after the connection's first request.
final class UpgradeTokenHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let server: TranscriptionServer
  private var isRefusing = false

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
    let isUpgrade = head.headers[canonicalForm: "upgrade"].contains {
      $0.lowercased() == "websocket"
    }
    if isUpgrade,
      !server.authorizes(uri: head.uri, authorization: head.headers["authorization"].first)
    {
      isRefusing = true
      server.metrics.sessionRejected(reason: "token")
      // The path only: the query may hold a wrong token.
      SessionLog.rejected(
        server.logger, endpoint: String(head.uri.prefix { $0 != "?" }),
        remoteAddress: context.channel.remoteAddress.flatMap(ServerRequestContext.describe),
        reason: .unauthorized)
      refuse(context: context)
      return
    }
    context.fireChannelRead(data)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }

  private func refuse(context: ChannelHandlerContext) {
    let body = ByteBuffer(
      string: "a token is required: send Authorization: Bearer TOKEN or ?token=TOKEN\n")
    var headers = HTTPHeaders()
    headers.add(name: "WWW-Authenticate", value: "Bearer")
    headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
    headers.add(name: "Content-Length", value: String(body.readableBytes))
    headers.add(name: "Connection", value: "close")
    context.write(
      wrapOutboundOut(
        .head(HTTPResponseHead(version: .http1_1, status: .unauthorized, headers: headers))),
      promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      channel.close(promise: nil)
    }
  }
}
