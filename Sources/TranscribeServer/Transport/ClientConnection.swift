import Foundation
import NIOCore
import Synchronization

/// Whether the client at the other end of a connection is still there.
///
/// The server lets clients half-close their connections, and a request handler that is busy
/// decoding reads nothing from the socket, so neither Hummingbird nor the WebSocket layer tells a
/// handler that its client left. ``ClientConnectionHandler`` watches the raw connection from the
/// first place in the pipeline and marks it gone when the client closes its side (or the
/// connection drops), so an upload or a stream whose client left stops decoding at once.
public final class ClientConnection: Sendable {
  private let gone = Latch()
  private let unresponsive = Atomic<Bool>(false)
  private let refusal = Mutex<String?>(nil)
  private let upgradePath = Mutex<String?>(nil)

  /// Creates a connection whose client is there.
  public init() {}

  /// Whether the client has closed its side or the connection dropped.
  public var isGone: Bool { gone.isRaised }

  /// Whether the server closed the connection because the client stopped answering its pings
  /// (a WebSocket that went quiet without closing).
  public var isUnresponsive: Bool { unresponsive.load(ordering: .relaxed) }

  /// Notes that the client left pings unanswered until the connection was closed.
  func markUnresponsive() {
    unresponsive.store(true, ordering: .relaxed)
  }

  /// Why the WebSocket layer refused the client's frames (a protocol violation, a message too
  /// large to read), when it did: the client has had it as an error and a close, and the
  /// stream's log line says it.
  public var refusalReason: String? { refusal.withLock { $0 } }

  /// Notes why the WebSocket layer refused the client's frames.
  func markRefused(_ reason: String) {
    refusal.withLock { $0 = $0 ?? reason }
  }

  /// The path the connection was upgraded to a WebSocket on (`/`, `/v1/realtime`), once it was:
  /// which protocol speaks on it, so the WebSocket layer answers in that protocol's words.
  var webSocketPath: String? { upgradePath.withLock { $0 } }

  /// Notes the path of the connection's WebSocket upgrade.
  func markUpgraded(path: String) {
    // `/v1/realtime/` is the route `/v1/realtime`.
    var path = path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    upgradePath.withLock { [path] in $0 = path }
  }

  /// Marks the client gone and wakes everyone waiting; later calls do nothing.
  func markGone() {
    gone.raise()
  }

  /// Returns once the client is gone, or when the calling task is cancelled.
  public func waitUntilGone() async {
    await gone.wait()
  }
}

/// Sits first in a connection's pipeline and marks its ``ClientConnection`` gone when the client
/// closes its side or the connection drops; passes everything on unchanged.
///
/// A connection past ``ServerConfiguration/maxConnections`` gets a `503` written straight to the
/// socket from here, and is closed.
final class ClientConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundOut = ByteBuffer

  let connection: ClientConnection
  /// The answer for a connection turned away, written as soon as the handler is in place.
  private let refusal: ByteBuffer?
  /// Whether the connection's last answer is written and what the client still sends is
  /// thrown away until it closes (see ``closeAfterLingering(context:)``).
  private var isLingering = false

  init(connection: ClientConnection, refusal: ByteBuffer? = nil) {
    self.connection = connection
    self.refusal = refusal
  }

  func handlerAdded(context: ChannelHandlerContext) {
    guard let refusal else { return }
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(refusal)).whenComplete { _ in
      channel.close(promise: nil)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    // A connection turned away, or closing after its last answer, reads nothing more.
    guard refusal == nil, !isLingering else { return }
    context.fireChannelRead(data)
  }

  /// Closes the connection politely once its last answer is written: the server's side is shut
  /// down at once, and what the client is still sending is read and thrown away until it closes
  /// its side, or for `linger` at most. Closing at once while the client still sends would reset
  /// the connection, and the client would lose the answer unread in its buffer.
  ///
  /// `beforeClosing` runs (on the event loop) just before the connection closes, once: the place
  /// to tell the rest of the pipeline, whose handlers would otherwise close the connection at
  /// once.
  func closeAfterLingering(
    context: ChannelHandlerContext,
    linger: TimeAmount = .seconds(ServerConfiguration.refusalLingerSeconds),
    beforeClosing: @escaping () -> Void = {}
  ) {
    guard !isLingering else { return }
    isLingering = true
    lingerEnd = beforeClosing
    let channel = context.channel
    channel.close(mode: .output, promise: nil)
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    context.eventLoop.scheduleTask(in: linger) {
      bound.value.endLingering(channel: channel)
    }
  }

  /// What runs before a lingering connection closes (see ``closeAfterLingering``).
  private var lingerEnd: (() -> Void)?

  private func endLingering(channel: any Channel) {
    let end = lingerEnd
    lingerEnd = nil
    end?()
    channel.close(promise: nil)
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let event = event as? ChannelEvent, event == .inputClosed {
      // A lingering connection's stream hears why it ends before it hears the client left.
      if isLingering { endLingering(channel: context.channel) }
      connection.markGone()
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelInactive(context: ChannelHandlerContext) {
    connection.markGone()
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A reset connection: the client is gone whatever the next handler makes of the error.
    if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) {
      connection.markGone()
    }
    context.fireErrorCaught(error)
  }
}

/// The connections open at once, counted against ``ServerConfiguration/maxConnections``.
final class OpenConnections: Sendable {
  private let count = Atomic<Int>(0)

  /// The connections open now.
  var current: Int { count.load(ordering: .relaxed) }

  /// Counts a new connection; `false` (and not counted) when `limit` are open already.
  func admit(limit: Int) -> Bool {
    let (_, new) = count.add(1, ordering: .relaxed)
    guard new <= limit else {
      count.subtract(1, ordering: .relaxed)
      return false
    }
    return true
  }

  /// A counted connection closed.
  func release() {
    count.subtract(1, ordering: .relaxed)
  }

  /// The answer to a connection past the limit, written before any HTTP is read.
  static func refusal(limit: Int, retryAfterSeconds: Int) -> ByteBuffer {
    Refusal(
      .serviceUnavailable,
      text: SessionProblem.tooManyConnections(limit: limit).sentence.dropLast()
        + ", or reuse a connection.\n",
      headers: [("Retry-After", "\(retryAfterSeconds)")]
    ).bytes
  }
}
