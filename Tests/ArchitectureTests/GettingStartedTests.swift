import Architecture
import Clocks
import Testing

// The feature and test from the "Getting started" article, kept here so the article's code keeps
// compiling and passing.

private struct Counter: Reducer {
  struct State: Equatable {
    var count = 0
    var fact: String?
    var isLoading = false
  }

  @CasePathable
  enum Action: Equatable {
    case decrementButtonTapped
    case incrementButtonTapped
    case factButtonTapped
    case factResponse(String)
  }

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .decrementButtonTapped:
        state.count -= 1
        state.fact = nil
        return .none

      case .incrementButtonTapped:
        state.count += 1
        state.fact = nil
        return .none

      case .factButtonTapped:
        state.isLoading = true
        return .run { [count = state.count] send in
          try await clock.sleep(for: .seconds(1))
          await send(.factResponse("\(count) is a good number."))
        }

      case .factResponse(let fact):
        state.isLoading = false
        state.fact = fact
        return .none
      }
    }
  }
}

@MainActor
struct GettingStartedTests {
  @Test func factArrivesAfterASecond() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }

    await store.send(.incrementButtonTapped) {
      $0.count = 1
    }
    await store.send(.factButtonTapped) {
      $0.isLoading = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.factResponse) {
      $0.isLoading = false
      $0.fact = "1 is a good number."
    }
  }

  @Test func storeRunsTheCounterForAHost() async {
    let store = Store(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = ImmediateClock()
    }
    var states = store.states.makeAsyncIterator()
    store.send(.incrementButtonTapped)
    await store.send(.factButtonTapped).finish()
    #expect(await states.next()?.count == 0)
    #expect(await states.next()?.count == 1)
    #expect(await states.next()?.isLoading == true)
    #expect(await states.next()?.fact == "1 is a good number.")
  }
}
