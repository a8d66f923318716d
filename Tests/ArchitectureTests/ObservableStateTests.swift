import Architecture
import ConcurrencyExtras
import Testing

@ObservableState
private struct Counter: Equatable {
  var count = 0
  var label = ""
  @ObservationStateIgnored var ignored = 0

  mutating func reset() {
    self = Self()
  }

  mutating func replace(with other: Self) {
    self = other
  }
}

@ObservableState
private struct Screen: Equatable {
  var counter = Counter()
  var sibling = Counter()
  var optional: Counter?
  var destination: Destination?
}

@CasePathable
@ObservableState
private enum Destination: Equatable {
  case first(Counter)
  case second(Counter)
  case none
}

@MainActor
struct ObservableStateTests {
  @Test func changingAPropertyTellsItsObservers() {
    var state = Counter()
    let count = LockIsolated(0)
    withObservationTracking {
      _ = state.count
    } onChange: {
      count.withValue { $0 += 1 }
    }
    state.count += 1
    #expect(count.value == 1)
    #expect(state.count == 1)
  }

  @Test func changingAnotherPropertyOrAnIgnoredOneTellsNoOne() {
    var state = Counter()
    let fired = LockIsolated(false)
    withObservationTracking {
      _ = state.count
      _ = state.ignored
    } onChange: {
      fired.setValue(true)
    }
    state.label = "x"
    state.ignored = 5
    #expect(!fired.value)
  }

  @Test func mutatingAChildInPlaceTellsTheChildsObserversNotTheParents() {
    var state = Screen()
    let childCount = LockIsolated(0)
    let child = LockIsolated(0)
    withObservationTracking {
      _ = state.counter.count
    } onChange: {
      childCount.withValue { $0 += 1 }
    }
    withObservationTracking {
      _ = state.counter
    } onChange: {
      child.withValue { $0 += 1 }
    }
    state.counter.count += 1
    #expect(childCount.value == 1)
    #expect(child.value == 0)
  }

  @Test func replacingAChildTellsTheParentsObservers() {
    var state = Screen()
    let child = LockIsolated(0)
    withObservationTracking {
      _ = state.counter
    } onChange: {
      child.withValue { $0 += 1 }
    }
    state.counter = Counter(count: 42)
    #expect(child.value == 1)
    #expect(state.counter.count == 42)
  }

  @Test func presentingAndChangingOptionalAndEnumChildrenTellsObservers() {
    var state = Screen(optional: Counter())
    let optional = LockIsolated(0)
    let optionalCount = LockIsolated(0)
    let destination = LockIsolated(0)
    let presented = state.optional
    withObservationTracking {
      _ = state.optional
    } onChange: {
      optional.withValue { $0 += 1 }
    }
    withObservationTracking {
      _ = presented?.count
    } onChange: {
      optionalCount.withValue { $0 += 1 }
    }
    withObservationTracking {
      _ = state.destination
    } onChange: {
      destination.withValue { $0 += 1 }
    }
    state.optional?.count += 1
    #expect(optional.value == 0)
    #expect(optionalCount.value == 1)

    state.destination = .first(Counter(count: 1))
    #expect(destination.value == 1)
    #expect(state.destination?[case: \.first]?.count == 1)
  }

  @Test func storeStateIsObservedThroughWithObservationTracking() {
    let store = Store(initialState: Counter()) {
      Reduce<Counter, Int> { state, amount in
        state.count += amount
        return .none
      }
    }
    let count = LockIsolated(0)
    withObservationTracking {
      _ = store.state.count
    } onChange: {
      count.withValue { $0 += 1 }
    }
    store.send(0 + 1)
    #expect(count.value == 1)
    #expect(store.count == 1)
  }

  @Test func storeTellsObserversWhenAReducerReplacesTheWholeState() {
    let store = Store(initialState: Counter(count: 42)) {
      Reduce<Counter, Void> { state, _ in
        state.reset()
        return .none
      }
    }
    let count = LockIsolated(0)
    withObservationTracking {
      _ = store.count
    } onChange: {
      count.withValue { $0 += 1 }
    }
    store.send(())
    #expect(count.value == 1)
    #expect(store.count == 0)
  }

  @Test func observableStateKeepsEquatableAndMemberwiseInit() {
    let a = Counter(count: 1, label: "a")
    var b = a
    #expect(a == b)
    b.count = 2
    #expect(a != b)
    #expect(a.count == 1)
  }
}

@MainActor
struct ObservableStateCopyTests {
  @Test func replacingAChildWithACopyOfItsSiblingTellsObservers() {
    let original = Counter(count: 1)
    var copy = original
    copy.count = 2
    var state = Screen(counter: original, sibling: copy)
    let fired = LockIsolated(false)
    withObservationTracking {
      _ = state.counter.count
    } onChange: {
      fired.setValue(true)
    }
    state.counter.replace(with: state.sibling)
    #expect(fired.value)
    #expect(state.counter.count == 2)
  }
}

@ObservableState
private struct Lists: Equatable {
  var array: [Counter] = [Counter()]
  var identified: IdentifiedArrayOf<IdentifiedCounter> = [IdentifiedCounter(id: 1)]
  var stack = StackState<Counter>([Counter()])
  @Presents var presented: Counter?
}

@ObservableState
private struct IdentifiedCounter: Equatable, Identifiable {
  let id: Int
  var count = 0
}

extension ObservableStateTests {
  @Test func assigningAnEqualValueTellsNoOne() {
    var state = Counter(count: 1)
    let fired = LockIsolated(false)
    withObservationTracking {
      _ = state.count
    } onChange: {
      fired.setValue(true)
    }
    state.count = state.count
    #expect(!fired.value)
    state.count = 2
    #expect(fired.value)
  }

  @Test func changingAnElementInPlaceTellsTheElementsObserversNotTheCollections() {
    var state = Lists()
    let collectionsChanged = LockIsolated(0)
    let elementsChanged = LockIsolated(0)
    for read in [{ _ = state.array }, { _ = state.identified }, { _ = state.stack }] {
      withObservationTracking(read) { collectionsChanged.withValue { $0 += 1 } }
    }
    withObservationTracking {
      _ = state.array[0].count
      _ = state.identified[0].count
      _ = state.stack[0].count
    } onChange: {
      elementsChanged.withValue { $0 += 1 }
    }
    state.array[0].count += 1
    state.identified[id: 1]?.count += 1
    state.stack[id: 0]?.count += 1
    #expect(collectionsChanged.value == 0)
    #expect(elementsChanged.value == 1)
    #expect(state.array[0].count == 1 && state.identified[0].count == 1)
    #expect(state.stack[0].count == 1)

    // Adding an element changes the collection: the stack's observers (still waiting) are told.
    state.stack.append(Counter())
    #expect(collectionsChanged.value == 1)
  }

  @Test func presentingAndDismissingThroughPresentsTellsObservers() {
    var state = Lists()
    let changes = LockIsolated(0)
    let observe = {
      withObservationTracking {
        _ = state.presented
      } onChange: {
        changes.withValue { $0 += 1 }
      }
    }
    observe()
    state.presented = Counter()
    #expect(changes.value == 1)
    observe()
    state.presented?.count += 1  // the child's own observers are told, not the parent's
    #expect(changes.value == 1)
    state.$presented.wrappedValue = nil
    #expect(changes.value == 2)
  }

  @Test func perceptionTrackingIsObservationTracking() {
    var state = Counter()
    let fired = LockIsolated(false)
    withPerceptionTracking {
      _ = state.count
    } onChange: {
      fired.setValue(true)
    }
    state.count += 1
    #expect(fired.value)
  }
}
