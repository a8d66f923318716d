import Dependencies
import DependenciesTestSupport
import Foundation
import Testing

@Suite(.dependency(\.uuid, .incrementing))
struct TestTraitTests {
  @Dependency(\.uuid) var uuid

  // The trait's value is made for each test, so every test counts from zero.
  @Test func suiteTraitGivesEachTestItsOwnValue1() {
    #expect(uuid() == UUID(0))
    #expect(uuid() == UUID(1))
  }

  @Test func suiteTraitGivesEachTestItsOwnValue2() {
    #expect(uuid() == UUID(0))
    #expect(uuid() == UUID(1))
  }

  @Test(.dependency(\.date.now, Date(timeIntervalSince1970: 5)))
  func keyPathTraitSetsTheValue() {
    @Dependency(\.date.now) var now
    #expect(now == Date(timeIntervalSince1970: 5))
  }

  @Test(
    .dependencies {
      $0.date.now = Date(timeIntervalSince1970: 6)
      $0.locale = Locale(identifier: "de_DE")
    })
  func closureTraitSetsTheValues() {
    @Dependency(\.date.now) var now
    @Dependency(\.locale) var locale
    #expect(now == Date(timeIntervalSince1970: 6))
    #expect(locale.identifier == "de_DE")
  }

  @Test(.dependency(\.uuid, .constant(UUID(9))))
  func testTraitWinsOverTheSuiteTrait() {
    #expect(uuid() == UUID(9))
  }

  @Test(.dependency(TraitClient(value: 3)))
  func keyTypeTraitSetsTheValue() {
    @Dependency(TraitClient.self) var client
    #expect(client.value == 3)
  }
}

private struct TraitClient: TestDependencyKey {
  var value: Int
  static let testValue = TraitClient(value: 0)
}
