import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// The request context of both routers (HTTP and WebSocket upgrades): Hummingbird's WebSocket
/// context plus the client's address, so log lines say who is asking (`remote=…`).
public struct ServerRequestContext: RequestContext, WebSocketRequestContext,
  RemoteAddressRequestContext
{
  /// Hummingbird's storage for the request's logger, id and decoders.
  public var coreContext: CoreRequestContextStorage
  /// Where the WebSocket handler goes once the upgrade is accepted.
  ///
  /// hummingbird-websocket stores the handler there together with this context, which holds
  /// the reference: a cycle. The stream lets go of it once it runs
  /// (``releaseWebSocketHandler()``), so its context is freed with it.
  public var webSocket: WebSocketHandlerReference<Self> {
    upgrade.reference ?? WebSocketHandlerReference()
  }
  private let upgrade: UpgradeReference
  /// The client's address, when the channel knows it.
  public let remoteAddress: SocketAddress?
  /// The connection the request arrived on, while it is open.
  public var channel: (any Channel)? { connection.channel }
  private let connection: ConnectionReference

  /// The request's connection, held weakly.
  ///
  /// hummingbird-websocket keeps an accepted upgrade's handler in the context's
  /// ``webSocket`` reference together with the context itself, a cycle nothing breaks: every
  /// WebSocket session's context outlives it. Held strongly here, the channel would go with it,
  /// with its receive buffers (about 100 KB for a session that got a 1 MB message).
  ///
  /// The channel's ``ClientConnection`` is looked up as the request arrives. A stream that
  /// starts late, after its client was refused, had its answer and left, finds a closed channel
  /// without handlers; the connection it looks at must still be the one that knows why.
  private final class ConnectionReference: @unchecked Sendable {
    // Written once, before the context is shared.
    weak var channel: (any Channel)?
    /// The connection's watcher's ``ClientConnection``, from the event loop.
    let client: EventLoopFuture<ClientConnection>

    init(_ channel: any Channel) {
      self.channel = channel
      client = channel.pipeline.handler(type: ClientConnectionHandler.self).map(\.connection)
    }
  }

  /// Whether the client is still there, as the connection's watcher sees it. When the watcher
  /// was not found (the channel had closed already, or was set up without one, as in tests):
  /// gone if the channel is gone, else a fresh connection that is never gone.
  var clientConnection: ClientConnection {
    get async {
      if let client = try? await connection.client.get() { return client }
      let client = ClientConnection()
      if connection.channel == nil { client.markGone() }
      return client
    }
  }

  /// The context's ``webSocket`` reference, until the stream it passed on has started.
  private final class UpgradeReference: Sendable {
    private let stored = Mutex<WebSocketHandlerReference<ServerRequestContext>?>(.init())

    var reference: WebSocketHandlerReference<ServerRequestContext>? {
      stored.withLock { $0 }
    }

    func release() {
      stored.withLock { $0 = nil }
    }
  }

  /// Lets go of the WebSocket handler the upgrade passed on: call it once the stream runs.
  public func releaseWebSocketHandler() {
    upgrade.release()
  }

  /// Creates the context for a request arriving on `source`'s channel.
  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    upgrade = UpgradeReference()
    remoteAddress = source.channel.remoteAddress
    connection = ConnectionReference(source.channel)
  }

  /// The request's logger with the client's address (`remote=IP:PORT`) in its metadata.
  public var loggerWithRemoteAddress: Logger {
    var logger = self.logger
    if let address = remoteAddress.flatMap(Self.describe) {
      logger[metadataKey: "remote"] = .string(address)
    }
    return logger
  }

  /// The client's address as logs show it (`IP:PORT`).
  public var remoteDescription: String? {
    remoteAddress.flatMap(Self.describe)
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

/// Who sent a request: the client's address (for logs) and whether it is still connected.
struct RequestClient: Sendable {
  /// `IP:PORT`, or `nil` when the context does not know it.
  var address: String?
  /// Whether the client is still there; never gone for a context that cannot tell.
  var connection: ClientConnection
  /// The connection the request arrived on, for interim answers (`100 Continue`); `nil` for a
  /// context that does not know it.
  var channel: (any Channel)?

  /// A client at `address` on `connection` (a test's, say).
  init(address: String?, connection: ClientConnection) {
    self.address = address
    self.connection = connection
  }

  /// The client of a request in `context`; only ``ServerRequestContext`` knows it.
  init(_ context: some RequestContext) async {
    if let context = context as? ServerRequestContext {
      address = context.remoteDescription
      connection = await context.clientConnection
      channel = context.channel
    } else {
      address = nil
      connection = ClientConnection()
    }
  }
}
