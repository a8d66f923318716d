import Dependencies
import Foundation
import IssueReporting
import Testing

@Suite struct TestValueTests {
  @Test func liveOnlyKeyInATestFailsWithAMessageThatNamesItAndReturnsTheLiveValue() {
    @Dependency(\.liveOnly) var liveOnly
    let line = #line - 1
    var value: LiveOnlyClient?
    withKnownIssue {
      value = liveOnly
    } matching: { issue in
      let message = issue.comments.map(\.rawValue).joined()
      return message.contains(#"@Dependency(\.liveOnly) has no test implementation"#)
        && message.contains("TestValueTests.swift:\(line)")
        && message.contains("Key:   DependenciesTests.LiveOnlyClient")
        && message.contains("Value: DependenciesTests.LiveOnlyClient")
        && message.contains("override 'liveOnly'")
        && message.contains("give 'DependenciesTests.LiveOnlyClient' a 'testValue'")
    }
    #expect(value == LiveOnlyClient(name: "live"))
  }

  @Test func issueIsReportedAtThePropertyWrappersLine() {
    @Dependency(\.liveOnly) var liveOnly
    let line = #line - 1
    withKnownIssue {
      _ = liveOnly
    } matching: { issue in
      issue.sourceLocation?.line == line && issue.sourceLocation?.fileName == "TestValueTests.swift"
    }
  }

  @Test func overridingTheLiveOnlyKeyIsQuiet() {
    withDependencies {
      $0.liveOnly = LiveOnlyClient(name: "mock")
    } operation: {
      @Dependency(\.liveOnly) var liveOnly
      #expect(liveOnly.name == "mock")
    }
  }
}
