import Clocks
import Dependencies
import Foundation
import Testing

@Suite struct BuiltInDependenciesTests {
  @Test func constantDateAndLiveDate() {
    let epoch = Date(timeIntervalSince1970: 0)
    withDependencies {
      $0.date = .constant(epoch)
    } operation: {
      @Dependency(\.date) var date
      #expect(date.now == epoch)
      #expect(date() == epoch)
    }
    let before = Date()
    let now = DateGenerator.live.now
    #expect(now >= before)
  }

  @Test func incrementingUUIDsCountFromZero() {
    withDependencies {
      $0.uuid = .incrementing
    } operation: {
      @Dependency(\.uuid) var uuid
      #expect(uuid() == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
      #expect(uuid() == UUID(uuidString: "00000000-0000-0000-0000-000000000001"))
      #expect(uuid().uuidString == "00000000-0000-0000-0000-000000000002")
    }
    #expect(UUID(counting: 255).uuidString == "00000000-0000-0000-0000-0000000000FF")
  }

  @Test func seededGeneratorIsReproducible() {
    func draw() -> [Int] {
      withDependencies {
        $0.withRandomNumberGenerator = WithRandomNumberGenerator(
          SeededRandomNumberGenerator(seed: 42))
      } operation: {
        @Dependency(\.withRandomNumberGenerator) var withRandomNumberGenerator
        return (0..<5).map { _ in
          withRandomNumberGenerator { Int.random(in: 0...1000, using: &$0) }
        }
      }
    }
    let first = draw()
    #expect(first == draw())
    #expect(Set(first).count > 1)
  }

  @Test func overriddenClockDrivesSleeps() async throws {
    let clock = ImmediateClock()
    try await withDependencies {
      $0.continuousClock = clock
    } operation: {
      @Dependency(\.continuousClock) var continuousClock
      try await continuousClock.sleep(for: .seconds(3600))
    }
  }

  @Test func unoverriddenDateFailsTheTestNamingIt() {
    @Dependency(\.date) var date
    withKnownIssue {
      _ = date.now
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.date)"#)
    }
  }

  @Test func unoverriddenUUIDFailsTheTestNamingIt() {
    @Dependency(\.uuid) var uuid
    withKnownIssue {
      _ = uuid()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.uuid)"#)
    }
  }

  @Test func unoverriddenRandomNumberGeneratorFailsTheTestNamingIt() {
    @Dependency(\.withRandomNumberGenerator) var withRandomNumberGenerator
    withKnownIssue {
      _ = withRandomNumberGenerator { $0.next() }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.withRandomNumberGenerator)"#)
    }
  }

  @Test func unoverriddenContinuousClockFailsTheTestNamingIt() async {
    @Dependency(\.continuousClock) var clock
    await withKnownIssue {
      try? await clock.sleep(for: .milliseconds(1))
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.continuousClock)"#)
    }
  }

  @Test func unoverriddenSuspendingClockFailsTheTestNamingIt() {
    @Dependency(\.suspendingClock) var clock
    withKnownIssue {
      _ = clock.now
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.suspendingClock)"#)
    }
  }
}
