import Architecture
import Clocks
import Testing

@MainActor
struct StackReducerTests {
  @Reducer
  struct Screen {
    struct State: Equatable {
      var ticks = 0
    }
    @CasePathable
    enum Action: Equatable {
      case backButtonTapped
      case startTimer
      case tick
    }
    @Dependency(\.continuousClock) var clock
    @Dependency(\.dismiss) var dismiss

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .backButtonTapped:
          return .run { _ in await dismiss() }
        case .startTimer:
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
  }

  @Reducer
  struct Navigator {
    struct State: Equatable {
      var path = StackState<Screen.State>()
      var popsSeen: [Int] = []
    }
    @CasePathable
    enum Action: Equatable {
      case path(StackActionOf<Screen>)
      case pushScreen
      case popToRoot
    }

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .pushScreen:
          state.path.append(Screen.State())
          return .none
        case .popToRoot:
          state.path.removeAll()
          return .none
        case .path(.popFrom(let id)):
          // The parent sees the pop while the element is still in the stack.
          state.popsSeen.append(state.path[id: id] == nil ? -1 : state.path.count)
          return .none
        case .path:
          return .none
        }
      }
      .forEach(\.path, action: \.path) {
        Screen()
      }
    }
  }

  @Test func elementsGetIDsCountingFromZero() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    #expect(store.state.path.ids == [0, 1])
    await store.send(\.path[id: 1].tick) { $0.path[id: 1]?.ticks = 1 }
  }

  @Test func anElementPopsItselfWithTheDismissDependency() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    // Dismissing the bottom element pops it and everything above it.
    await store.send(\.path[id: 0].backButtonTapped)
    await store.receive(\.path.popFrom, 0) {
      $0.path = []
      $0.popsSeen = [2]
    }
  }

  @Test func poppingCancelsThePoppedElementsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Navigator.State()) {
      Navigator()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    await store.send(.path(.element(id: 0, action: .startTimer)))
    await store.send(.path(.element(id: 1, action: .startTimer)))
    await clock.advance(by: .seconds(1))
    await store.receive(\.path[id: 0].tick) { $0.path[id: 0]?.ticks = 1 }
    await store.receive(\.path[id: 1].tick) { $0.path[id: 1]?.ticks = 1 }
    // Popping the top element ends its timer; the one below keeps ticking.
    await store.send(.path(.popFrom(id: 1))) {
      $0.path.pop(from: 1)
      $0.popsSeen = [2]
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.path[id: 0].tick) { $0.path[id: 0]?.ticks = 2 }
    // Removing elements any other way ends their effects too.
    await store.send(.popToRoot) { $0.path = [] }
    await clock.advance(by: .seconds(5))
  }

  @Test func pushAddsTheElementUnderItsID() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.path(.push(id: 0, state: Screen.State(ticks: 3)))) {
      $0.path[id: 0] = Screen.State(ticks: 3)
    }
    // Later elements get ids after the pushed one.
    await store.send(.pushScreen) { $0.path[id: 1] = Screen.State() }
    #expect(store.state.path.ids == [0, 1])
    await withKnownIssue {
      await store.send(.path(.push(id: 0, state: Screen.State())))
    } matching: { issue in
      issue.description.contains("received a push for an id that is already in the stack")
    }
  }

  @Test func pushUnderAnIDPastTheNextGenerationIsReported() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    await withKnownIssue {
      await store.send(.path(.push(id: 5, state: Screen.State(ticks: 3)))) {
        $0.path[id: 5] = Screen.State(ticks: 3)
      }
    } matching: { issue in
      issue.description.contains("received a push for an id the stack has not handed out yet")
        && issue.description.contains("The pushed id is #5, but the next id to be handed out is #1")
    }
    // The element is pushed anyway, and later ids do not collide with it.
    await store.send(.pushScreen) { $0.path[id: 6] = Screen.State() }
    #expect(store.state.path.ids == [0, 5, 6])
  }

  @Test func pushUnderTheNextGenerationOrAnEarlierOneIsAccepted() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.pushScreen) { $0.path.append(Screen.State()) }
    await store.send(.path(.push(id: 1, state: Screen.State(ticks: 1)))) {
      $0.path[id: 1] = Screen.State(ticks: 1)
    }
    await store.send(.popToRoot) { $0.path = [] }
    // An id handed out before, no longer in the stack.
    await store.send(.path(.push(id: 0, state: Screen.State(ticks: 2)))) {
      $0.path[id: 0] = Screen.State(ticks: 2)
    }
    await store.send(.pushScreen) { $0.path[id: 2] = Screen.State() }
  }

  @Reducer
  struct ClearingFirst {
    struct State: Equatable {
      var path = StackState<Screen.State>()
    }
    @CasePathable
    enum Action: Equatable {
      case path(StackActionOf<Screen>)
      case clear
    }
    var body: some ReducerOf<Self> {
      // Removes elements before the stack reducer runs.
      Reduce { state, action in
        if case .clear = action { state.path.removeAll() }
        return .none
      }
      EmptyReducer<State, Action>()
        .forEach(\.path, action: \.path) { Screen() }
    }
  }

  @Test func elementsRemovedByAnotherReducerHaveTheirEffectsCancelled() async {
    let clock = TestClock()
    let store = TestStore(initialState: ClearingFirst.State(path: [Screen.State()])) {
      ClearingFirst()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(\.path[id: 0].startTimer)
    await store.send(.clear) { $0.path = [] }
    await clock.advance(by: .seconds(5))
  }

  @Test func anActionForAMissingElementIsReported() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await withKnownIssue {
      await store.send(.path(.element(id: 3, action: .tick)))
    } matching: { issue in
      issue.description.contains("received an action for a missing stack element")
    }
  }

  @Test func stackStateIsACollectionWithIDs() {
    var stack: StackState<String> = ["a", "b", "c"]
    #expect(Array(stack) == ["a", "b", "c"])
    #expect(stack.ids == [0, 1, 2])
    stack.pop(to: 0)
    #expect(Array(stack) == ["a"])
    stack.append("d")
    #expect(stack.ids == [0, 3])
    stack[id: 3] = nil
    #expect(Array(stack) == ["a"])
    withKnownIssue {
      stack[id: 42] = "nowhere"
    }
    #expect(Array(stack) == ["a"])
  }
}
