import Synchronization

/// The WebSocket streams running now, so a shutdown can ask each for its last words and wait
/// until they have all closed.
public final class ActiveStreams: Sendable {
  private struct State {
    var isDraining = false
    var nextID = 0
    var shutdowns: [Int: @Sendable () -> Void] = [:]
  }

  private let state = Mutex(State())
  /// Raised once a drain has begun and no stream is left.
  private let drained = Latch()

  /// Creates an empty registry.
  public init() {}

  /// The streams running now.
  public var count: Int { state.withLock { $0.shutdowns.count } }

  /// Whether a shutdown has begun: new streams are turned away.
  public var isDraining: Bool { state.withLock { $0.isDraining } }

  /// Registers a stream; `shutdown` is called once when the server shuts down. Returns `nil`
  /// when the server is already shutting down.
  func register(shutdown: @escaping @Sendable () -> Void) -> Int? {
    state.withLock { state in
      guard !state.isDraining else { return nil }
      state.nextID += 1
      state.shutdowns[state.nextID] = shutdown
      return state.nextID
    }
  }

  /// Removes a stream that has ended.
  func unregister(_ id: Int) {
    let isDrained = state.withLock { state in
      state.shutdowns[id] = nil
      return state.isDraining && state.shutdowns.isEmpty
    }
    if isDrained { drained.raise() }
  }

  /// Turns new streams away and asks every running one to deliver its last words and close;
  /// returns once they all have, or when the calling task is cancelled.
  public func drain() async {
    let shutdowns = state.withLock { state in
      state.isDraining = true
      return Array(state.shutdowns.values)
    }
    if shutdowns.isEmpty { drained.raise() }
    for shutdown in shutdowns { shutdown() }
    await drained.wait()
  }
}
