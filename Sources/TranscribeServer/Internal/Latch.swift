import Synchronization

/// A flag raised once, which tasks can wait for: a client that has left, a drain that is
/// over.
final class Latch: Sendable {
  private struct State {
    var isRaised = false
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextWaiter = 0
  }

  private let state = Mutex(State())

  /// Whether the flag is raised.
  var isRaised: Bool { state.withLock { $0.isRaised } }

  /// Raises the flag and wakes everyone waiting; later calls do nothing.
  func raise() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard !state.isRaised else { return [] }
      state.isRaised = true
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once the flag is raised, or when the calling task is cancelled.
  func wait() async {
    let id = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let isDone = state.withLock { state in
          let isDone = state.isRaised || Task.isCancelled
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
