import ConcurrencyExtras
import Dependencies
import Foundation
import Testing

@Suite struct NewBuiltInDependenciesTests {
  @Test func dateNowIsSettable() {
    withDependencies {
      $0.date.now = Date(timeIntervalSince1970: 42)
    } operation: {
      @Dependency(\.date) var date
      #expect(date.now == Date(timeIntervalSince1970: 42))
      #expect(date() == Date(timeIntervalSince1970: 42))
    }
  }

  @Test func uuidFromAnInteger() {
    #expect(UUID(0).uuidString == "00000000-0000-0000-0000-000000000000")
    #expect(UUID(10).uuidString == "00000000-0000-0000-0000-00000000000A")
    #expect(UUID(0x1_0000_0000_0000).uuidString == "00000000-0000-0000-0001-000000000000")
    #expect(UUID(-1).uuidString == "00000000-0000-0001-0000-000000000001")
    let incrementing = UUIDGenerator.incrementing
    #expect(incrementing() == UUID(0))
    #expect(incrementing() == UUID(1))
  }

  @Test func calendarLocaleAndTimeZoneCanBeOverridden() throws {
    let zone = try #require(TimeZone(secondsFromGMT: 3600))
    withDependencies {
      $0.calendar = Calendar(identifier: .buddhist)
      $0.locale = Locale(identifier: "fr_FR")
      $0.timeZone = zone
    } operation: {
      @Dependency(\.calendar) var calendar
      @Dependency(\.locale) var locale
      @Dependency(\.timeZone) var timeZone
      #expect(calendar.identifier == .buddhist)
      #expect(locale.identifier == "fr_FR")
      #expect(timeZone == zone)
    }
  }

  @Test func calendarLocaleAndTimeZoneAreLiveOutsideTests() {
    withDependencies {
      $0.context = .live
    } operation: {
      @Dependency(\.calendar) var calendar
      @Dependency(\.locale) var locale
      @Dependency(\.timeZone) var timeZone
      #expect(calendar == Calendar.autoupdatingCurrent)
      #expect(locale == Locale.autoupdatingCurrent)
      #expect(timeZone == TimeZone.autoupdatingCurrent)
    }
  }

  @Test func unoverriddenLocaleFailsTheTestNamingIt() {
    @Dependency(\.locale) var locale
    withKnownIssue {
      _ = locale
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.locale)"#)
    }
  }

  @Test func fireAndForgetFinishesTheWorkBeforeReturningInTests() async {
    @Dependency(\.fireAndForget) var fireAndForget
    let done = LockIsolated(false)
    await fireAndForget {
      await Task.yield()
      done.setValue(true)
    }
    #expect(done.value)
  }

  @Test func fireAndForgetReportsErrorsInTests() async {
    struct Failure: Error {}
    @Dependency(\.fireAndForget) var fireAndForget
    await withKnownIssue {
      await fireAndForget { throw Failure() }
    }
  }

  @Test func fireAndForgetDoesNotWaitLive() async {
    let started = AsyncStream<Void>.makeStream()
    let release = AsyncStream<Void>.makeStream()
    await withDependencies {
      $0.context = .live
    } operation: {
      @Dependency(\.fireAndForget) var fireAndForget
      await fireAndForget {
        started.continuation.yield()
        for await _ in release.stream { break }
      }
    }
    // Returned while the work is still waiting to be released.
    for await _ in started.stream { break }
    release.continuation.yield()
  }
}
