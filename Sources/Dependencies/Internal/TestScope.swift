import IssueReporting

/// Identifies the test that is running, so cached default values never leak between tests.
enum TestScope {
  struct ID: Hashable, @unchecked Sendable {
    var rawValue: AnyHashable
  }

  /// The current Swift Testing test, or the current XCTest test case, if any.
  static func currentID() -> ID? {
    switch TestContext.current {
    case .swiftTesting(let testing?):
      return ID(rawValue: testing.test.id.rawValue)
    case .xcTest:
      return XCTestCaseObserver.currentTestCaseID.map { ID(rawValue: $0) }
    default:
      return nil
    }
  }
}

/// Tracks XCTest test cases. Placeholder: filled in below.
enum XCTestCaseObserver {
  static var currentTestCaseID: AnyHashable? { nil }
}
