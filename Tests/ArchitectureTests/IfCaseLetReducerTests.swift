import Architecture
import Clocks
import Testing

@MainActor
struct IfCaseLetReducerTests {
  struct Timer: Reducer {
    struct State: Equatable { var ticks = 0 }
    @CasePathable
    enum Action: Equatable { case start, tick }
    @Dependency(\.continuousClock) var clock
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        return .run { send in
          for await _ in clock.timer(interval: .seconds(1)) {
            await send(.tick)
          }
        }
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }

  struct Screen: Reducer {
    @CasePathable
    enum State: Equatable {
      case timer(Timer.State)
      case idle
    }
    @CasePathable
    enum Action: Equatable {
      case timer(Timer.Action)
      case leave
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if action == .leave { state = .idle }
        return .none
      }
      .ifCaseLet(\.timer, action: \.timer) { Timer() }
    }
  }

  @Test func childRunsInItsCaseAndItsEffectsEndWhenTheCaseChanges() async {
    let clock = TestClock()
    let store = TestStore(initialState: Screen.State.timer(Timer.State())) {
      Screen()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.timer(.start))
    await clock.advance(by: .seconds(1))
    await store.receive(\.timer.tick) { $0 = .timer(Timer.State(ticks: 1)) }
    await store.send(.leave) { $0 = .idle }
  }

  @Test func childActionInAnotherCaseIsReported() async {
    let store = TestStore(initialState: Screen.State.idle) { Screen() }
    await withKnownIssue {
      await store.send(.timer(.tick))
    } matching: {
      $0.description.contains("An 'ifCaseLet' at ArchitectureTests/IfCaseLetReducerTests.swift:")
        && $0.description.contains("received a child action when state was in another case")
    }
  }
}
