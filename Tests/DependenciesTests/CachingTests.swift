import ConcurrencyExtras
import Dependencies
import Testing

@Suite struct CachingTests {
  @Test func defaultValueIsCreatedOnceAndReused() {
    let first = DependencyValues._current.counting
    let second = DependencyValues._current.counting
    #expect(first === second)
    @Dependency(\.counting) var counting
    #expect(counting === first)
  }

  @Test func liveGetterRunsOncePerContext() {
    withDependencies {
      $0.context = .live
    } operation: {
      let before = liveOnlyCreations.value
      _ = DependencyValues._current.liveOnly
      _ = DependencyValues._current.liveOnly
      _ = DependencyValues._current.liveOnly
      #expect(liveOnlyCreations.value == before + 1)
    }
  }

  @Test func aDefaultMayReadOtherDependenciesWhileBeingCreated() {
    // Would deadlock with a non-recursive lock.
    #expect(DependencyValues._current.derived == "derived from 3")
  }

  @Test func concurrentFirstReadsCreateOneValue() async {
    let boxes = await withTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<50 {
        group.addTask { ObjectIdentifier(DependencyValues._current.counting) }
      }
      var ids = Set<ObjectIdentifier>()
      for await id in group { ids.insert(id) }
      return ids
    }
    #expect(boxes.count == 1)
  }
}

/// Values created by one test must not be seen by another. Each test here reads the cached
/// `counting` box and checks that no other test of the pair saw the same instance. Whichever
/// runs second would see the first one's box if the cache leaked between tests.
let boxesSeenByTests = LockIsolated<[String: Int]>([:])

@Suite(.serialized) struct FreshValuesPerTestTests {
  func readAndCheck(_ name: String) {
    // Compare serial numbers, not addresses: a freed box's address can be reused.
    let box = DependencyValues._current.counting.serial
    #expect(DependencyValues._current.counting.serial == box)
    let others = boxesSeenByTests.withValue { seen in
      seen[name] = box
      return seen.filter { $0.key != name }.map(\.value)
    }
    #expect(!others.contains(box), "a cached value leaked in from another test")
  }

  @Test func firstTestGetsItsOwnValue() { readAndCheck("first") }
  @Test func secondTestGetsItsOwnValue() { readAndCheck("second") }
  @Test func thirdTestGetsItsOwnValue() { readAndCheck("third") }
}
