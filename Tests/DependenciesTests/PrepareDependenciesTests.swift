import Dependencies
import Foundation
import Testing

@Suite struct PrepareDependenciesTests {
  // Each test prepares its own value; a cache shared between tests would reject the second one.
  @Test func preparedValueIsTheDefault1() {
    prepareDependencies { $0.date.now = Date(timeIntervalSince1970: 1) }
    @Dependency(\.date.now) var now
    #expect(now == Date(timeIntervalSince1970: 1))
  }

  @Test func preparedValueIsTheDefault2() {
    prepareDependencies { $0.date.now = Date(timeIntervalSince1970: 2) }
    @Dependency(\.date.now) var now
    #expect(now == Date(timeIntervalSince1970: 2))
  }

  @Test func preparedValueIsSeenInTasksAndByObjectsMadeLater() async {
    prepareDependencies { $0.uuid = .constant(UUID(5)) }
    let id = await Task {
      @Dependency(\.uuid) var uuid
      return uuid()
    }.value
    #expect(id == UUID(5))
  }

  @Test func preparingADependencyThatWasAlreadyReadIsReported() {
    prepareDependencies { $0.uuid = .constant(UUID(1)) }
    withKnownIssue {
      prepareDependencies { $0.uuid = .constant(UUID(2)) }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.uuid)"#)
    }
    @Dependency(\.uuid) var uuid
    #expect(uuid() == UUID(1))
  }

  @Test func aScopeStillOverridesAPreparedValue() {
    prepareDependencies { $0.uuid = .constant(UUID(1)) }
    withDependencies {
      $0.uuid = .constant(UUID(2))
    } operation: {
      @Dependency(\.uuid) var uuid
      #expect(uuid() == UUID(2))
    }
  }
}
