import Dependencies
import Testing

@Suite struct AssertTests {
  @Test func passingChecksReportNothing() {
    @Dependency(\.assert) var assert
    @Dependency(\.precondition) var precondition
    assert(true)
    assert(1 < 2, "ordered")
    precondition(true, "never shown")
  }

  @Test func failedAssertFailsTheTestWithItsMessage() {
    @Dependency(\.assert) var assert
    withKnownIssue {
      assert(false, "Index must not be negative")
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("Index must not be negative")
    }
  }

  @Test func failedPreconditionAndAssertionFailureFailTheTestInsteadOfTrapping() {
    @Dependency(\.precondition) var precondition
    @Dependency(\.assertionFailure) var assertionFailure
    withKnownIssue {
      precondition(false, "precondition message")
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("precondition message")
    }
    withKnownIssue {
      assertionFailure("unreachable")
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("unreachable")
    }
  }
}
