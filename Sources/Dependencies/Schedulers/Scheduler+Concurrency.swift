import ConcurrencyExtras
import Foundation

extension Scheduler {
  /// Suspends the current task for `duration` of the scheduler's time.
  ///
  /// On a ``TestScheduler`` the task wakes when the test advances the scheduler past the
  /// deadline; on an ``ImmediateScheduler`` it does not wait at all.
  ///
  /// ```swift
  /// return .run { send in
  ///   try await mainQueue.sleep(for: .seconds(1))
  ///   await send(.delayed)
  /// }
  /// ```
  ///
  /// - Throws: `CancellationError` if the task is cancelled before or while it sleeps; the
  ///   scheduled wake-up is withdrawn then.
  public func sleep(
    for duration: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) async throws {
    try Task.checkCancellation()
    let sleeper = Sleeper()
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        guard sleeper.wait(continuation) else { return }
        // A repeating schedule, cancelled at the first run, rather than a one-off: it can be
        // withdrawn, so a cancelled sleep leaves nothing behind on a test scheduler.
        let wakeUp = schedule(
          after: now.advanced(by: duration),
          interval: duration,
          tolerance: tolerance,
          options: options
        ) {
          sleeper.wake()
        }
        sleeper.hold(wakeUp)
      }
    } onCancel: {
      sleeper.wake()
    }
    try Task.checkCancellation()
  }

  /// Suspends the current task until the scheduler's time reaches `deadline`.
  public func sleep(
    until deadline: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) async throws {
    try await sleep(for: now.distance(to: deadline), tolerance: tolerance, options: options)
  }

  /// The scheduler's time every `interval`, as an asynchronous sequence that runs until the
  /// iterating task stops (or is cancelled).
  ///
  /// ```swift
  /// return .run { send in
  ///   for await _ in mainQueue.timer(interval: .seconds(1)) {
  ///     await send(.timerTicked)
  ///   }
  /// }
  /// .cancellable(id: CancelID.timer)
  /// ```
  public func timer(
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) -> AsyncStream<SchedulerTimeType> {
    let scheduler = UncheckedSendable(self)
    return AsyncStream { continuation in
      let ticks = schedule(
        after: now.advanced(by: interval),
        interval: interval,
        tolerance: tolerance,
        options: options
      ) {
        continuation.yield(UncheckedSendable(scheduler.value.now).value)
      }
      let stop = UncheckedSendable(ticks)
      continuation.onTermination = { _ in stop.value.cancel() }
    }
  }

  /// How much of the scheduler's time `work` took (on a ``TestScheduler``, how far `work`
  /// advanced it).
  public func measure(_ work: () throws -> Void) rethrows -> SchedulerTimeType.Stride {
    let start = now
    try work()
    return start.distance(to: now)
  }
}

/// One sleeping task: resumed exactly once, by its wake-up or by cancellation, whichever comes
/// first; the wake-up is withdrawn either way.
private final class Sleeper: @unchecked Sendable {
  // `@unchecked`: every field is guarded by `lock`.
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Void, Never>?
  private var wakeUp: (any Cancellable)?
  private var isAwake = false

  /// Keeps `continuation` to resume later; returns `false` (and resumes it now) if the sleeper was
  /// already woken, by cancellation, before it got here.
  func wait(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
    let awake = lock.withLock {
      if !isAwake { self.continuation = continuation }
      return isAwake
    }
    if awake { continuation.resume() }
    return !awake
  }

  /// Keeps the scheduled wake-up, to withdraw it once woken (at once if that already happened,
  /// as it does on an immediate scheduler).
  func hold(_ wakeUp: any Cancellable) {
    let awake = lock.withLock {
      if !isAwake { self.wakeUp = wakeUp }
      return isAwake
    }
    if awake { wakeUp.cancel() }
  }

  /// Resumes the task, the first time only, and withdraws the wake-up.
  func wake() {
    let (continuation, wakeUp) = lock.withLock {
      defer {
        isAwake = true
        self.continuation = nil
        self.wakeUp = nil
      }
      return (self.continuation, self.wakeUp)
    }
    wakeUp?.cancel()
    continuation?.resume()
  }
}
