@_spi(Internals) import Architecture
import ConcurrencyExtras
import Testing

/// `effect.actions`: an effect run on its own, outside any store, as TCA's own tests run them.
///
/// Cancellation ids are shared by every stream in the process, so each test uses an id type of
/// its own. A stream that never finishes would hang a test: the time limit fails it instead.
@MainActor
@Suite(.timeLimit(.minutes(1)))
struct EffectActionsTests {
  @Test func anEffectThatDoesNothingFinishesWithoutActions() async {
    #expect(await Effect<Int>.none.actions.collected() == [])
  }

  @Test func concatenatedEffectsDeliverTheirActionsInOrderAndThenFinish() async {
    let effect = Effect<Int>.concatenate(
      .send(1),
      .run { send in
        await send(2)
        await send(3)
      },
      .send(4)
    )
    #expect(await effect.actions.collected() == [1, 2, 3, 4])
  }

  @Test func mergedEffectsDeliverEveryAction() async {
    let effect = Effect<Int>.merge(
      .send(1),
      .run { send in await send(2) },
      .run { send in await send(3) }
    )
    #expect(await effect.actions.collected().sorted() == [1, 2, 3])
  }

  @Test func mappedActionsComeTransformed() async {
    let effect = Effect<Int>.run { send in await send(2) }.map { "\($0 * 10)" }
    #expect(await effect.actions.collected() == ["20"])
  }

  @Test func aDebouncedEffectInOneStreamCancelsTheOneWaitingInAnother() async {
    struct Debounce: Hashable {}
    let scheduler = CountingScheduler()
    let first = Task {
      await Effect.send(1).debounce(id: Debounce(), for: 1, scheduler: scheduler.erased).actions
        .collected()
    }
    await scheduler.waitForSleeps(1)
    await scheduler.test.advance(by: 0.5)

    let second = Task {
      await Effect.send(2).debounce(id: Debounce(), for: 1, scheduler: scheduler.erased).actions
        .collected()
    }
    // The second cancels the first, which ends without its action.
    #expect(await first.value == [])
    await scheduler.waitForSleeps(2)
    // Due a second after the second started, at 1.5.
    await scheduler.test.advance(by: 1)
    #expect(await second.value == [2])
  }

  /// As upstream's: the effect starts when `actions` is read, before anything iterates it.
  @Test func readingTheActionsStartsTheEffectAndCancelsInFlightAtOnce() async {
    struct Debounce: Hashable {}
    let scheduler = CountingScheduler()
    let first = Task {
      await Effect.send(1).debounce(id: Debounce(), for: 1, scheduler: scheduler.erased)
        .actions.collected()
    }
    await scheduler.waitForSleeps(1)

    let second = Effect.send(2).debounce(id: Debounce(), for: 1, scheduler: scheduler.erased)
      .actions
    await scheduler.waitForSleeps(2)
    await scheduler.test.advance(by: 1)
    #expect(await first.value == [])
    #expect(await second.collected() == [2])
  }

  @Test func nothingOfADebouncedEffectArrivesBeforeItsTime() async {
    struct Debounce: Hashable {}
    let scheduler = CountingScheduler()
    let started = LockIsolated(false)
    let effect = Effect<Int>.run { send in
      started.setValue(true)
      await send(1)
    }
    .debounce(id: Debounce(), for: 1, scheduler: scheduler.erased)
    let stream = Task { await effect.actions.collected() }
    await scheduler.waitForSleeps(1)
    await scheduler.test.advance(by: 0.9)
    #expect(!started.value)
    await scheduler.test.advance(by: 0.1)
    #expect(await stream.value == [1])
    #expect(started.value)
  }

  @Test func cancelInOneStreamStopsAnEffectUnderTheSameIDInAnother() async {
    struct Long: Hashable {}
    let scheduler = CountingScheduler()
    let waiting = Effect<Int>.run { [erased = scheduler.erased] send in
      try await erased.sleep(for: 10)
      await send(1)
    }
    .cancellable(id: Long())
    let first = Task { await waiting.actions.collected() }
    await scheduler.waitForSleeps(1)

    #expect(await Effect<Int>.cancel(id: Long()).actions.collected() == [])
    // Ends without the scheduler moving.
    #expect(await first.value == [])
  }

  @Test func anIDCancelsOnlyItsOwnEffects() async {
    struct Kept: Hashable {}
    struct Cancelled: Hashable {}
    let scheduler = CountingScheduler()
    let kept = Task {
      await Effect<Int>.run { [erased = scheduler.erased] send in
        try await erased.sleep(for: 1)
        await send(1)
      }
      .cancellable(id: Kept())
      .actions.collected()
    }
    await scheduler.waitForSleeps(1)
    _ = await Effect<Int>.cancel(id: Cancelled()).actions.collected()
    await scheduler.test.advance(by: 1)
    #expect(await kept.value == [1])
  }

  @Test func taskCancelInsideAnEffectReachesAnotherStreamsEffect() async {
    struct Timer: Hashable {}
    let scheduler = CountingScheduler()
    let timer = Task {
      await Effect<Int>.run { [erased = scheduler.erased] send in
        try await erased.sleep(for: 10)
        await send(1)
      }
      .cancellable(id: Timer())
      .actions.collected()
    }
    await scheduler.waitForSleeps(1)
    let stopper = Effect<Int>.run { send in
      Task.cancel(id: Timer())
      await send(0)
    }
    #expect(await stopper.actions.collected() == [0])
    #expect(await timer.value == [])
  }

  @Test func endingTheIterationCancelsTheEffect() async throws {
    let cancelled = LockIsolated(false)
    let effect = Effect<Int>.run { send in
      await send(1)
      do {
        try await Task.sleep(for: .seconds(60))
      } catch {
        cancelled.setValue(true)
      }
    }
    for await action in effect.actions {
      #expect(action == 1)
      break
    }
    try await waitUntil { cancelled.value }
    #expect(cancelled.value)
  }
}

extension AsyncStream {
  /// Every element, once the stream has finished.
  fileprivate func collected() async -> [Element] {
    var elements: [Element] = []
    for await element in self {
      elements.append(element)
    }
    return elements
  }
}

/// A test scheduler that counts the sleeps started on it, so a test can advance it only once the
/// effect it drives is waiting.
private final class CountingScheduler: Sendable {
  let test = DispatchQueue.test
  private let sleeps = LockIsolated(0)

  var erased: AnySchedulerOf<DispatchQueue> {
    let test = self.test
    let sleeps = self.sleeps
    return AnySchedulerOf<DispatchQueue>(
      minimumTolerance: { test.minimumTolerance },
      now: { test.now },
      scheduleImmediately: { test.schedule(options: $0, $1) },
      delayed: { test.schedule(after: $0, tolerance: $1, options: $2, $3) },
      interval: {
        sleeps.withValue { $0 += 1 }
        return test.schedule(after: $0, interval: $1, tolerance: $2, options: $3, $4)
      }
    )
  }

  /// Waits until `count` sleeps (schedules with an interval) have started in all.
  func waitForSleeps(_ count: Int) async {
    try? await waitUntil { self.sleeps.value >= count }
  }
}

/// Lets other tasks run until `condition` holds, for at most about five seconds.
private func waitUntil(_ condition: @Sendable () -> Bool) async throws {
  for _ in 0..<5_000 {
    if condition() { return }
    await Task.yield()
    try await Task.sleep(for: .milliseconds(1))
  }
  Issue.record("The condition did not hold within five seconds.")
}
