import Architecture
import Testing

// Written as TCA 1.x users write features: no explicit `Reducer` conformance, no
// `@CasePathable`, no `@ReducerBuilder`. Each compiles only because `@Reducer` adds them.

@Reducer
private struct Child {
  @ObservableState
  struct State: Equatable {
    var taps = 0
  }
  enum Action: Equatable {
    case tap
    case tapped(Int)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .tap:
        state.taps += 1
        return .send(.tapped(state.taps))
      case .tapped:
        return .none
      }
    }
  }
}

@Reducer
private struct Parent {
  @ObservableState
  struct State: Equatable {
    var child = Child.State()
    var mode = Mode.State.idle
  }
  enum Action: Equatable {
    case child(Child.Action)
    case mode(Mode.Action)
  }

  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: \.child) {
      Child()
    }
    Scope(state: \.mode, action: \.mode) {
      Mode()
    }
  }
}

/// A reducer over an enum state, whose cases become case key paths.
@Reducer
private struct Mode {
  enum State: Equatable {
    case idle
    case running(Int)
  }
  enum Action: Equatable {
    case start
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state = .running(1)
    return .none
  }
}

/// A reducer with no logic at all: the macro supplies `State`, `Action` and `body`.
@Reducer
private struct Empty {}

@MainActor
struct ReducerMacroTests {
  @Test func reducerMacroAddsConformanceAndCasePathsForSendAndReceive() async {
    let store = TestStore(initialState: Parent.State()) {
      Parent()
    }
    await store.send(.child(.tap)) {
      $0.child.taps = 1
    }
    await store.receive(\.child.tapped, 1)
    await store.send(\.mode.start) {
      $0.mode = .running(1)
    }
  }

  @Test func actionEnumGetsDynamicMemberLookupOverItsCases() {
    let action = Parent.Action.child(.tapped(3))
    #expect(action.child == .tapped(3))
    #expect(action.child?.tapped == 3)
    #expect(action.mode == nil)
  }

  @Test func enumStateGetsCasePathsAndDynamicMemberLookup() {
    let state = Mode.State.running(2)
    #expect(state.running == 2)
    #expect(state[case: \.idle] == nil)
  }

  @Test func emptyReducerGetsStateActionAndBody() async {
    let store = Store(initialState: Empty.State()) {
      Empty()
    }
    #expect(store.state == Empty.State())
    #expect(type(of: Empty().body) == EmptyReducer<Empty.State, Empty.Action>.self)
  }
}

/// A reducer whose `State` and `Action` come from its body's type alone.
@Reducer
private struct Toggle {
  var body: some Reducer<Int, Bool> {
    Reduce { state, action in
      state += action ? 1 : -1
      return .none
    }
  }
}

@MainActor
struct ReducerBodyInferenceTests {
  @Test func stateAndActionAreInferredFromTheBody() async {
    let store = TestStore(initialState: 0) {
      Toggle()
    }
    await store.send(true) { $0 = 1 }
  }
}

/// Several enum reducers in one type, shaped like TCA's own macro tests: one with a feature case,
/// one with only an alert, one with no cases. swift-frontend 6.3.1 crashed (signal 11) compiling
/// this file while the macros attached to each generated `State` and `Action` (`@CasePathable`,
/// `@ObservableState`) added their conformances in extensions; a `@Reducer` struct beside three
/// enum reducers, one with a case for it, was enough (issue 28).
private enum SeveralEnumReducers {
  @Reducer struct Feature {}
  @Reducer
  enum Destination {
    case feature(Feature)
  }
  @Reducer
  public enum AlertDestination {
    case alert(AlertState<Never>)
  }
  @Reducer
  public enum NoDestination {}
}

/// The smallest file that crashed with enum reducers alone: six with no cases.
private enum SixEnumReducersWithoutCases {
  @Reducer enum A {}
  @Reducer enum B {}
  @Reducer enum C {}
  @Reducer enum D {}
  @Reducer enum E {}
  @Reducer enum F {}
}

/// Compiles only if `State` has the conformances the macros give it.
private func requireEnumReducerState<State>(_: State.Type)
where State: CaseReducerState & ObservableState & Observable & CasePathable & CasePathIterable {}

@MainActor
struct SeveralEnumReducersTests {
  @Test func enumReducersInOneTypeKeepTheirConformances() {
    requireEnumReducerState(SeveralEnumReducers.Destination.State.self)
    requireEnumReducerState(SeveralEnumReducers.AlertDestination.State.self)
    requireEnumReducerState(SeveralEnumReducers.NoDestination.State.self)
    requireEnumReducerState(SixEnumReducersWithoutCases.F.State.self)
    #expect(Array(SeveralEnumReducers.Destination.Action.allCasePaths).count == 1)
  }

  @Test func aFeatureCaseKeepsItsFeaturesIdentity() {
    let feature = SeveralEnumReducers.Feature.State()
    let state = SeveralEnumReducers.Destination.State.feature(feature)
    #expect(state._$id == SeveralEnumReducers.Destination.State.feature(feature)._$id)
    #expect(state._$id != SeveralEnumReducers.Destination.State.feature(.init())._$id)
  }
}
