import Architecture
import Testing

/// Features written with the case paths of TCA before 1.4 (`/Action.child`) still compile, with
/// a deprecation warning, and behave as with case key paths.
@MainActor
struct CasePathSpellingsTests {
  @Test func scopeIfCaseLetAndForEachAcceptCasePaths() async {
    let store = TestStore(initialState: LegacySpelling.State()) { LegacySpelling() }
    await store.send(.child(.increment)) { $0.child.count = 1 }
    await store.send(.mode(.increment)) { $0.mode = .counting(LegacyCounter.State(count: 1)) }
    await store.send(.rows(.element(id: 1, action: .increment))) {
      $0.rows[id: 1]?.count = 1
    }
    await store.send(.row(id: 1, action: .increment)) { $0.rows[id: 1]?.count = 2 }
    await store.send(.optional(.increment)) { $0.optional?.count = 1 }
  }
}

@Reducer
struct LegacyCounter {
  struct State: Equatable, Identifiable {
    var id = 1
    var count = 0
  }
  enum Action: Equatable { case increment }
  var body: some ReducerOf<Self> {
    Reduce { state, _ in
      state.count += 1
      return .none
    }
  }
}

@Reducer
struct LegacySpelling {
  struct State: Equatable {
    var child = LegacyCounter.State()
    var mode = Mode.counting(LegacyCounter.State())
    var rows: IdentifiedArrayOf<LegacyCounter.State> = [LegacyCounter.State()]
    var optional: LegacyCounter.State? = LegacyCounter.State()
  }
  enum Mode: Equatable {
    case counting(LegacyCounter.State)
    case idle
  }
  enum Action: Equatable {
    case child(LegacyCounter.Action)
    case mode(LegacyCounter.Action)
    case rows(IdentifiedActionOf<LegacyCounter>)
    case row(id: Int, action: LegacyCounter.Action)
    case optional(LegacyCounter.Action)
  }
  @available(*, deprecated)
  var body: some ReducerOf<Self> {
    Scope(state: \.child, action: /Action.child) { LegacyCounter() }
    Scope(state: \.mode, action: /Action.mode) {
      EmptyReducer<Mode, LegacyCounter.Action>()
        .ifCaseLet(/Mode.counting, action: /.self) { LegacyCounter() }
    }
    EmptyReducer<State, Action>()
      .forEach(\.rows, action: /Action.rows) { LegacyCounter() }
      .forEach(\.rows, action: /Action.row(id:action:)) { LegacyCounter() }
      .ifLet(\.optional, action: /Action.optional) { LegacyCounter() }
  }
}
