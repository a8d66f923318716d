import Dependencies
import Foundation
import Testing

/// A client whose default reads another dependency while it is created.
private struct StampClient: TestDependencyKey {
  var createdAt: Date
  static var testValue: StampClient {
    @Dependency(\.date.now) var now
    return StampClient(createdAt: now)
  }
}

private struct StampedModel {
  @Dependency(StampClient.self) var stamp
}

@Suite struct DefaultReadingDependencyTests {
  @Test func defaultCreatedWhileReadingSeesTheReadersCapturedValues() {
    let model = withDependencies {
      $0 = DependencyValues()
      $0.date.now = Date(timeIntervalSince1970: 1234)
    } operation: {
      StampedModel()
    }
    // Read outside the scope: the default is created now, and must see the captured date.
    #expect(model.stamp.createdAt == Date(timeIntervalSince1970: 1234))
  }
}
