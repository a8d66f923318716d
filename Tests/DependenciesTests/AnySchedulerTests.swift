import Dependencies
import Foundation
import Testing

@Suite struct AnySchedulerTests {
  @Test func anErasedSchedulerForwardsToTheOneItWraps() {
    let scheduler = DispatchQueue.test
    let erased = scheduler.eraseToAnyScheduler()
    var ran: [String] = []
    erased.schedule { ran.append("now") }
    erased.schedule(after: erased.now.advanced(by: 1)) { ran.append("later") }
    let timer = erased.schedule(after: erased.now.advanced(by: 2), interval: 1) {
      ran.append("tick")
    }
    scheduler.advance(by: 3)
    timer.cancel()
    scheduler.advance(by: 3)
    #expect(ran == ["now", "later", "tick", "tick"])
    #expect(erased.now == scheduler.now)
    #expect(erased.minimumTolerance == .zero)
  }
}
