@_spi(Internals) import Dependencies
import Testing

/// A client with only a live value, as in an app that never wrote a test value.
private struct NumberClient: Sendable {
  var fetch: @Sendable () -> Int
  var name: @Sendable () -> String
}

extension NumberClient: DependencyKey {
  static let liveValue = NumberClient(fetch: { 42 }, name: { "live" })
}

extension DependencyValues {
  fileprivate var numberClient: NumberClient {
    get { self[NumberClient.self] }
    set { self[NumberClient.self] = newValue }
  }
}

@Suite struct WriteThroughTests {
  // Fails with an unexpected issue if the read that the write implies reports "no test value".
  @Test func settingOneEndpointOfALiveOnlyClientReportsNothing() {
    withDependencies {
      $0.numberClient.fetch = { 1729 }
    } operation: {
      @Dependency(\.numberClient) var numberClient
      #expect(numberClient.fetch() == 1729)
      #expect(numberClient.name() == "live")
    }
  }

  @Test func aPlainReadAfterAWriteInAnotherScopeStillReports() {
    withDependencies {
      $0.numberClient.fetch = { 1729 }
    } operation: {
    }
    @Dependency(\.numberClient) var numberClient
    withKnownIssue {
      _ = numberClient.fetch()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.numberClient)"#)
    }
  }

  // The way a test store's `dependencies` is written (`store.dependencies.client.endpoint = …`).
  @Test func writingThroughValuesBeingSetReportsNothingAndCachesNothing() {
    var values = DependencyValues._current
    values.isBeingSet = true
    values.numberClient.fetch = { 1729 }
    values.isBeingSet = false
    #expect(values.numberClient.fetch() == 1729)
    @Dependency(\.numberClient) var numberClient
    withKnownIssue {
      _ = numberClient.fetch()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.numberClient)"#)
    }
  }

  @Test func readingInsideTheUpdateClosureToWriteIsQuietToo() {
    withDependencies {
      let live = $0.numberClient
      $0.numberClient.name = { "wrapped " + live.name() }
    } operation: {
      @Dependency(\.numberClient) var numberClient
      #expect(numberClient.name() == "wrapped live")
    }
  }
}
