import Dependencies
import Testing

// `Value` is inferred from the one value a key declares. Without the associated type repeated on
// `DependencyKey`, these keys do not compile.
private enum SomeValueKey: DependencyKey {
  static let liveValue = 42
}

private enum OnlyTestValueKey: TestDependencyKey {
  static let testValue = "test"
}

private struct SelfKeyedClient: DependencyKey {
  var number: Int
  static let liveValue = SelfKeyedClient(number: 1)
}

@Suite struct DependencyKeyTests {
  @Test func valueIsInferredFromLiveValueAlone() {
    withDependencies {
      $0.context = .live
    } operation: {
      #expect(DependencyValues._current[SomeValueKey.self] == 42)
      #expect(DependencyValues._current[SelfKeyedClient.self].number == 1)
    }
  }

  @Test func valueIsInferredFromTestValueAlone() {
    #expect(DependencyValues._current[OnlyTestValueKey.self] == "test")
    withDependencies {
      $0.context = .preview
    } operation: {
      #expect(DependencyValues._current[OnlyTestValueKey.self] == "test")
    }
  }
}
