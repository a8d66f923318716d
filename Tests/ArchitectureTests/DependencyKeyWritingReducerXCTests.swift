import Architecture
import Foundation
import XCTest

/// The XCTest counterpart of `DependencyKeyWritingReportingKeysTests` (issue #41): in an XCTest
/// case, overriding keys whose test value reports when read must not fail the test either.
final class DependencyKeyWritingReducerXCTests: XCTestCase {
  @MainActor
  func testOverridesOfKeysThatReportWhenReadReportNothing() async {
    let store = TestStore(
      initialState: DependencyKeyWritingReportingKeysTests.Clockface.State()
    ) {
      DependencyKeyWritingReportingKeysTests.Clockface()
        .dependency(\.calendar, Calendar(identifier: .gregorian))
        .transformDependency(\.locale) { $0 = Locale(identifier: "en_US") }
        .dependency(\.timeZone, TimeZone(secondsFromGMT: 0)!)
    }
    await store.send(.tap) { $0.label = "gregorian en_US 0" }
  }
}
