import ConcurrencyExtras
import Dependencies
import DependenciesTestSupport
import Foundation
import Testing

/// A counter whose test value starts at zero each time it is created.
private struct Counter: TestDependencyKey {
  var increment: @Sendable () -> Int
  static var testValue: Counter {
    let count = LockIsolated(0)
    return Counter {
      count.withValue {
        $0 += 1
        return $0
      }
    }
  }
}

@Suite struct FreshValuesTests {
  // Each of these runs in parallel with the others and counts from one: a cache shared between
  // tests (or between concurrent tests) would give one of them 2 or more.
  @Test func firstTestCountsFromOne() async {
    @Dependency(Counter.self) var counter
    await Task.yield()
    #expect(counter.increment() == 1)
  }

  @Test func secondTestCountsFromOne() async {
    @Dependency(Counter.self) var counter
    await Task.yield()
    #expect(counter.increment() == 1)
  }

  @Test func thirdTestCountsFromOne() async {
    @Dependency(Counter.self) var counter
    await Task.yield()
    #expect(counter.increment() == 1)
  }

  @Test(.dependencies, .serialized, arguments: 1...4)
  func eachArgumentOfAParameterizedTestCountsFromOne(_ argument: Int) {
    @Dependency(Counter.self) var counter
    #expect(counter.increment() == 1)
  }

  @Test(arguments: 1...4)
  func assigningFreshValuesResetsTheDefaults(_ argument: Int) {
    withDependencies {
      $0 = DependencyValues()
    } operation: {
      @Dependency(Counter.self) var counter
      #expect(counter.increment() == 1)
      #expect(counter.increment() == 2)
    }
  }

  @Test func freshValuesInsideATestDoNotDisturbTheTestsOwnCache() {
    @Dependency(Counter.self) var counter
    #expect(counter.increment() == 1)
    withDependencies {
      $0 = DependencyValues()
    } operation: {
      @Dependency(Counter.self) var fresh
      #expect(fresh.increment() == 1)
    }
    #expect(counter.increment() == 2)
  }
}
