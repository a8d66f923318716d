import Dependencies
import Foundation
import Testing

@Suite struct DispatchQueueSchedulerTests {
  typealias Stride = DispatchQueue.SchedulerTimeType.Stride

  @Test func literalsAreSeconds() {
    let one: Stride = 1
    let half: Stride = 0.5
    #expect(one == .seconds(1))
    #expect(one.magnitude == 1_000_000_000)
    #expect(half == .milliseconds(500))
    #expect(Stride.seconds(0.25) == .microseconds(250_000))
    #expect(Stride.nanoseconds(7).magnitude == 7)
    #expect(Stride(exactly: 2) == .seconds(2))
    #expect(Stride(exactly: Int.max) == nil)
  }

  @Test func strideArithmeticIsInNanoseconds() {
    #expect(Stride.seconds(1) + .milliseconds(500) == .seconds(1.5))
    #expect(Stride.seconds(1) - .seconds(2) == -.seconds(1))
    #expect(Stride.seconds(1) > .milliseconds(999))
    #expect(Stride(.never).magnitude == .max)
    #expect(Stride(.seconds(Int.max)).magnitude == .max)
  }

  @Test func timesMoveByStridesAndMeasureTheDistanceBetweenThem() {
    let start = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1_000))
    let later = start.advanced(by: .nanoseconds(500))
    #expect(later.dispatchTime.uptimeNanoseconds == 1_500)
    #expect(start.distance(to: later) == .nanoseconds(500))
    #expect(later.distance(to: start) == .nanoseconds(-500))
    #expect(later.advanced(by: .nanoseconds(-500)) == start)
    #expect(start < later)
  }

  @Test func aQueueRunsScheduledActionsOnItself() async {
    let queue = DispatchQueue(label: "DispatchQueueSchedulerTests")
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    let onQueue = await withCheckedContinuation { continuation in
      queue.schedule { continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true) }
    }
    #expect(onQueue)
    let afterADeadline = await withCheckedContinuation { continuation in
      queue.schedule(after: queue.now) {
        continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
      }
    }
    #expect(afterADeadline)
  }

  @Test func aQueueRepeatsUntilCancelled() async {
    let queue = DispatchQueue(label: "DispatchQueueSchedulerTests.repeating")
    let ticks = await withCheckedContinuation { continuation in
      // Only touched on `queue`.
      nonisolated(unsafe) var count = 0
      nonisolated(unsafe) var timer: (any Cancellable)?
      timer = queue.schedule(after: queue.now, interval: .milliseconds(1)) {
        count += 1
        guard count == 3 else { return }
        timer?.cancel()
        continuation.resume(returning: count)
      }
    }
    #expect(ticks == 3)
  }

  @Test func sleepingOnAQueueWakesUp() async throws {
    let queue = DispatchQueue(label: "DispatchQueueSchedulerTests.sleep")
    try await queue.sleep(for: .milliseconds(1))
  }
}
