import Dependencies
import Foundation
import Testing

@Suite struct UnimplementedSchedulerTests {
  @Test func schedulingReportsAnIssueAndThenRunsTheAction() {
    let scheduler = DispatchQueue.unimplemented("Feature.mainQueue")
    var ran = false
    withKnownIssue {
      scheduler.schedule { ran = true }
    } matching: { issue in
      issue.description.contains("Feature.mainQueue")
    }
    #expect(ran)
  }

  @Test func readingTheTimeReportsAnIssue() {
    let scheduler = AnySchedulerOf<DispatchQueue>.unimplemented
    withKnownIssue {
      _ = scheduler.now
    }
  }

  @Test func sleepingOnItReportsAndDoesNotWait() async {
    let scheduler = AnySchedulerOf<DispatchQueue>.unimplemented("sleeper")
    await withKnownIssue {
      try await scheduler.sleep(for: .seconds(3600))
    }
  }
}
