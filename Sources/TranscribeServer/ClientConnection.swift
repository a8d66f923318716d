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
  private struct State {
    var isGone = false
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextWaiter = 0
  }

  private let state = Mutex(State())

  /// Creates a connection whose client is there.
  public init() {}

  /// Whether the client has closed its side or the connection dropped.
  public var isGone: Bool { state.withLock { $0.isGone } }

  /// Marks the client gone and wakes everyone waiting; later calls do nothing.
  func markGone() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard !state.isGone else { return [] }
      state.isGone = true
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once the client is gone, or when the calling task is cancelled.
  public func waitUntilGone() async {
    let id = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let isDone = state.withLock { state in
          let isDone = state.isGone || Task.isCancelled
          if !isDone { state.waiters[id] = continuation }
          return isDone
        }
        if isDone { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
      waiter?.resume()
    }
  }
}

/// Sits first in a connection's pipeline and marks its ``ClientConnection`` gone when the client
/// closes its side or the connection drops; passes everything on unchanged.
final class ClientConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  let connection: ClientConnection

  init(connection: ClientConnection) {
    self.connection = connection
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let event = event as? ChannelEvent, event == .inputClosed {
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

extension Channel {
  /// The connection's ``ClientConnection``, watched since the connection was set up; a fresh
  /// one (never gone) for a channel set up without the watcher.
  func clientConnection() async -> ClientConnection {
    let pipeline = self.pipeline
    let connection = try? await eventLoop.submit {
      try pipeline.syncOperations.handler(type: ClientConnectionHandler.self).connection
    }.get()
    return connection ?? ClientConnection()
  }
}
