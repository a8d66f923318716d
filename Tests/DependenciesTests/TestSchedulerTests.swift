import ConcurrencyExtras
import Dependencies
import Foundation
import Testing

@Suite struct TestSchedulerTests {
  @Test func actionsRunOnlyWhenTimeReachesThem() {
    let scheduler = DispatchQueue.test
    var ran: [String] = []
    scheduler.schedule(after: scheduler.now.advanced(by: 2)) { ran.append("two") }
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) { ran.append("one") }
    scheduler.schedule { ran.append("now") }
    #expect(ran.isEmpty)

    scheduler.advance()
    #expect(ran == ["now"])
    scheduler.advance(by: 0.5)
    #expect(ran == ["now"])
    scheduler.advance(by: 0.5)
    #expect(ran == ["now", "one"])
    scheduler.advance(by: 1)
    #expect(ran == ["now", "one", "two"])
  }

  @Test func actionsDueAtTheSameTimeRunInTheOrderTheyWereScheduled() {
    let scheduler = DispatchQueue.test
    var ran: [Int] = []
    let due = scheduler.now.advanced(by: .milliseconds(10))
    for index in 0..<5 {
      scheduler.schedule(after: due) { ran.append(index) }
    }
    scheduler.advance(by: .milliseconds(10))
    #expect(ran == [0, 1, 2, 3, 4])
  }

  @Test func timeMovesToEachActionAsItRunsAndThenToTheTarget() {
    let scheduler = DispatchQueue.test
    let start = scheduler.now
    var seen: [DispatchQueue.SchedulerTimeType.Stride] = []
    scheduler.schedule(after: start.advanced(by: 1)) {
      seen.append(start.distance(to: scheduler.now))
    }
    scheduler.schedule(after: start.advanced(by: 3)) {
      seen.append(start.distance(to: scheduler.now))
    }
    scheduler.advance(by: 5)
    #expect(seen == [.seconds(1), .seconds(3)])
    #expect(start.distance(to: scheduler.now) == .seconds(5))
  }

  @Test func actionsScheduledByActionsRunInTheSameAdvanceWhenDue() {
    let scheduler = DispatchQueue.test
    var ran: [String] = []
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) {
      ran.append("outer")
      scheduler.schedule { ran.append("inner, now") }
      scheduler.schedule(after: scheduler.now.advanced(by: 1)) { ran.append("inner, +1") }
      scheduler.schedule(after: scheduler.now.advanced(by: 5)) { ran.append("inner, +5") }
    }
    scheduler.advance(by: 2)
    #expect(ran == ["outer", "inner, now", "inner, +1"])
    scheduler.run()
    #expect(ran == ["outer", "inner, now", "inner, +1", "inner, +5"])
  }

  @Test func advancingToAnEarlierTimeDoesNothing() {
    let scheduler = DispatchQueue.test
    scheduler.advance(by: 2)
    let now = scheduler.now
    var ran = false
    scheduler.schedule { ran = true }
    scheduler.advance(to: now.advanced(by: -1))
    #expect(!ran)
    #expect(scheduler.now == now)
    scheduler.advance(to: now)
    #expect(ran)
  }

  @Test func repeatingActionsKeepTheirOrderAmongActionsDueTogether() {
    var cancellables: Set<AnyCancellable> = []
    let scheduler = DispatchQueue.test
    var values: [Int] = []
    scheduler.schedule(after: scheduler.now, interval: 1) { values.append(1) }
      .store(in: &cancellables)
    scheduler.schedule(after: scheduler.now, interval: 2) { values.append(2) }
      .store(in: &cancellables)
    scheduler.advance()
    #expect(values == [1, 2])
    scheduler.advance(by: 2)
    #expect(values == [1, 2, 1, 1, 2])
  }

  @Test func cancellingARepeatingActionStopsIt() {
    let scheduler = DispatchQueue.test
    var ticks = 0
    let timer = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) {
      ticks += 1
    }
    scheduler.advance(by: 3)
    #expect(ticks == 3)
    timer.cancel()
    scheduler.advance(by: 3)
    #expect(ticks == 3)
  }

  @Test func droppingTheAnyCancellableOfARepeatingActionStopsIt() {
    let scheduler = DispatchQueue.test
    var ticks = 0
    var timer: AnyCancellable? = AnyCancellable(
      scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) { ticks += 1 })
    scheduler.advance(by: 2)
    #expect(ticks == 2)
    _ = timer
    timer = nil
    scheduler.advance(by: 2)
    #expect(ticks == 2)
  }

  @Test func runAdvancesUntilNothingIsScheduled() {
    let scheduler = DispatchQueue.test
    let start = scheduler.now
    var ran: [Int] = []
    scheduler.schedule(after: start.advanced(by: 10)) {
      ran.append(10)
      scheduler.schedule(after: scheduler.now.advanced(by: 5)) { ran.append(15) }
    }
    scheduler.run()
    #expect(ran == [10, 15])
    #expect(start.distance(to: scheduler.now) == .seconds(15))
  }

  @Test func measureGivesTheTimeAWorkAdvanced() {
    let scheduler = DispatchQueue.test
    let elapsed = scheduler.measure { scheduler.advance(by: .milliseconds(1500)) }
    #expect(elapsed == .milliseconds(1500))
  }
}

/// Tasks sleeping on a test scheduler: these run the process's tasks serially on the main
/// queue, so a sleeping task has scheduled its wake-up before the test advances the scheduler.
/// That setting is process-wide, hence `.serialized`.
@Suite(.serialized, .timeLimit(.minutes(1))) struct TestSchedulerSleepTests {
  @Test func sleepEndsWhenTheSchedulerIsAdvancedPastIt() async throws {
    try await withMainSerialExecutor { @MainActor in
      let scheduler = DispatchQueue.test
      let woke = LockIsolated(false)
      let task = Task {
        try await scheduler.sleep(for: .seconds(1))
        woke.setValue(true)
      }
      await scheduler.advance(by: .milliseconds(999))
      #expect(!woke.value)
      await scheduler.advance(by: .milliseconds(1))
      #expect(woke.value)
      try await task.value
    }
  }

  @Test func nestedSleepsWakeInTurnWithinOneAdvance() async throws {
    try await withMainSerialExecutor { @MainActor in
      let scheduler = DispatchQueue.test
      let log = LockIsolated<[String]>([])
      let task = Task {
        try await scheduler.sleep(for: .seconds(1))
        log.withValue { $0.append("first") }
        try await scheduler.sleep(for: .seconds(1))
        log.withValue { $0.append("second") }
      }
      await scheduler.advance(by: .seconds(2))
      #expect(log.value == ["first", "second"])
      try await task.value
    }
  }

  @Test func cancellingASleepWithdrawsItsWakeUp() async {
    await withMainSerialExecutor { @MainActor in
      let scheduler = DispatchQueue.test
      let start = scheduler.now
      let task = Task { try await scheduler.sleep(for: .seconds(10)) }
      await scheduler.advance()
      task.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      await scheduler.run()
      #expect(scheduler.now == start)
    }
  }

  @Test func timerTicksOncePerInterval() async {
    await withMainSerialExecutor { @MainActor in
      let scheduler = DispatchQueue.test
      let start = scheduler.now
      let ticks = LockIsolated<[DispatchQueue.SchedulerTimeType.Stride]>([])
      let task = Task {
        for await time in scheduler.timer(interval: .seconds(1)) {
          ticks.withValue { $0.append(start.distance(to: time)) }
        }
      }
      await scheduler.advance(by: .seconds(3))
      #expect(ticks.value == [.seconds(1), .seconds(2), .seconds(3)])
      task.cancel()
      await task.value
    }
  }
}
