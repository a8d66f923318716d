import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The request context of both routers (HTTP and WebSocket upgrades): Hummingbird's WebSocket
/// context plus the client's address, so log lines say who is asking (`remote=…`).
public struct ServerRequestContext: RequestContext, WebSocketRequestContext,
  RemoteAddressRequestContext
{
  /// Hummingbird's storage for the request's logger, id and decoders.
  public var coreContext: CoreRequestContextStorage
  /// Where the WebSocket handler goes once the upgrade is accepted.
  public let webSocket: WebSocketHandlerReference<Self>
  /// The client's address, when the channel knows it.
  public let remoteAddress: SocketAddress?

  /// Creates the context for a request arriving on `source`'s channel.
  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    webSocket = .init()
    remoteAddress = source.channel.remoteAddress
  }

  /// The request's logger with the client's address (`remote=IP:PORT`) in its metadata.
  public var loggerWithRemoteAddress: Logger {
    var logger = self.logger
    if let address = remoteAddress.flatMap(Self.describe) {
      logger[metadataKey: "remote"] = .string(address)
    }
    return logger
  }

  /// `IP:PORT` for an internet address, the path for a Unix socket.
  static func describe(_ address: SocketAddress) -> String? {
    switch (address.ipAddress, address.port) {
    case (let ip?, let port?): "\(ip):\(port)"
    case (let ip?, nil): ip
    default: address.pathname
    }
  }
}
