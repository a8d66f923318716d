import ConcurrencyExtras
import Foundation
import IssueReporting

/// Identifies the test that is running, so cached default values never leak between tests.
///
/// - Swift Testing: the current `@Test`'s id (from IssueReporting's `TestContext`), which every
///   task of the test inherits.
/// - XCTest: a counter that a test observer bumps when each test case starts (see
///   ``XCTestCaseObserver``).
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
      return XCTestCaseObserver.currentTestCase.map { ID(rawValue: $0) }
    default:
      return nil
    }
  }
}

// On Linux there is no Objective-C runtime to find XCTest with, and swift-corelibs-xctest keeps
// the current test case private, so the only way to see each test case start is an
// `XCTestObservation`, which needs `import XCTest`. Upstream libraries put that observer in an
// extra dynamic product the user must link. Here it is compiled into debug builds only (what
// `swift test` builds) and registered lazily, the first time a dependency is read under a test
// runner. Release builds of an app never import or link XCTest.
#if DEBUG && canImport(XCTest)
  internal import XCTest

  private final class CacheResetObserver: NSObject, XCTestObservation {
    func testCaseWillStart(_ testCase: XCTestCase) {
      XCTestCaseObserver.testCaseWillStart()
    }
  }
#endif

/// Tracks XCTest test cases, so each one starts from fresh cached dependency values.
enum XCTestCaseObserver {
  private static let generation = LockIsolated<Int?>(nil)

  private static let register: Void = {
    #if DEBUG && canImport(XCTest)
      guard isTesting else { return }
      generation.setValue(0)
      XCTestObservationCenter.shared.addTestObserver(CacheResetObserver())
    #endif
  }()

  /// The number of the running XCTest test case, or `nil` when no observer could be installed.
  static var currentTestCase: Int? {
    register
    return generation.value
  }

  static func testCaseWillStart() {
    generation.withValue { $0 = ($0 ?? 0) + 1 }
    DependencyValues._current.cachedValues.resetXCTestValues()
  }
}
