import ConcurrencyExtras
import Dependencies
import XCTest

/// The XCTest counterpart of `FreshValuesPerTestTests`: each test case must get its own cached
/// default values, with nothing for the user to link or register.
final class XCTestFreshValuesTests: XCTestCase {
  private static let boxes = LockIsolated<[String: Int]>([:])

  private func readAndCheck() {
    Self.check(name: name)
  }

  private static func check(name: String) {
    // Compare serial numbers, not addresses: a freed box's address can be reused.
    let box = DependencyValues._current.counting.serial
    XCTAssertEqual(DependencyValues._current.counting.serial, box, "not cached")
    let others = boxes.withValue { seen in
      seen[name] = box
      return seen.filter { $0.key != name }.map(\.value)
    }
    XCTAssertFalse(others.contains(box), "a cached value leaked in from another test case")
  }

  private static func checkInTask(name: String) async {
    await Task { check(name: name) }.value
  }

  func testFirstCaseGetsItsOwnValue() { readAndCheck() }
  func testSecondCaseGetsItsOwnValue() { readAndCheck() }
  func testThirdCaseGetsItsOwnValue() async {
    await Self.checkInTask(name: name)
  }
}
