import ConcurrencyExtras

/// A thread-safe "please stop" flag that can also wake a thread blocked in a poll.
///
/// The thread that reads audio registers a waker (for PulseAudio, `pa_mainloop_wakeup`) while it
/// polls and unregisters it before freeing what the waker touches; `stop()` runs the waker under
/// the same lock, so it never touches freed memory.
public final class StopSignal: Sendable {
  private struct State {
    var isStopped = false
    var discardsPendingAudio = false
    var waker: (@Sendable () -> Void)?
  }
  private let state = LockIsolated(State())

  /// Creates a signal that is not raised yet.
  public init() {}

  /// Whether ``stop()`` was called.
  public var isStopped: Bool { state.value.isStopped }

  /// Whether audio captured before the stop should be dropped rather than decoded (nobody
  /// listens any more).
  public var discardsPendingAudio: Bool { state.value.discardsPendingAudio }

  /// Asks the reading thread to stop, waking it if it is polling.
  ///
  /// - Parameter discardingPendingAudio: drop audio captured but not yet decoded, because no
  ///   one will read the results.
  public func stop(discardingPendingAudio: Bool = false) {
    state.withValue { state in
      state.isStopped = true
      state.discardsPendingAudio = state.discardsPendingAudio || discardingPendingAudio
      state.waker?()
    }
  }

  /// Runs `body` with `waker` registered, so ``stop()`` can interrupt it.
  func withWaker<R, E: Error>(
    _ waker: @escaping @Sendable () -> Void, _ body: () throws(E) -> R
  ) throws(E) -> R {
    state.withValue { $0.waker = waker }
    defer { state.withValue { $0.waker = nil } }
    return try body()
  }
}
