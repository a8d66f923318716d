import ConcurrencyExtras

/// A thread-safe "please stop" flag that can also wake a thread blocked in a poll.
///
/// The thread that reads audio registers a waker (for PulseAudio, `pa_mainloop_wakeup`) while it
/// polls and unregisters it before freeing what the waker touches; `stop()` runs the waker under
/// the same lock, so it never touches freed memory.
final class StopSignal: Sendable {
  private struct State {
    var isStopped = false
    var waker: (@Sendable () -> Void)?
  }
  private let state = LockIsolated(State())

  /// Whether ``stop()`` was called.
  var isStopped: Bool { state.value.isStopped }

  /// Asks the reading thread to stop, waking it if it is polling.
  func stop() {
    state.withValue { state in
      state.isStopped = true
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
