import ConcurrencyExtras
import Dependencies
import Foundation
import Testing

@Suite struct ImmediateSchedulerTests {
  @Test func everyActionRunsAtOnceAndTimeStandsStill() {
    let scheduler = DispatchQueue.immediate
    let start = scheduler.now
    var ran: [String] = []
    scheduler.schedule { ran.append("now") }
    scheduler.schedule(after: start.advanced(by: 100)) { ran.append("later") }
    _ = scheduler.schedule(after: start, interval: 1) { ran.append("repeating") }
    #expect(ran == ["now", "later", "repeating"])
    #expect(scheduler.now == start)
  }

  @Test func sleepingOnItReturnsAtOnce() async throws {
    let scheduler = AnySchedulerOf<DispatchQueue>.immediate
    try await scheduler.sleep(for: .seconds(3600))
    var ticks = 0
    for await _ in scheduler.timer(interval: .seconds(1)) {
      ticks += 1
      break
    }
    #expect(ticks == 1)
  }
}
