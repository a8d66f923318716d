import Architecture
import Testing

/// `Scope`, `ifLet`, `forEach` and `ifCaseLet` keep the case paths they convert from case key
/// paths, so a `body` does not convert them for every action. These tests pin down that this
/// changes nothing, in debug and release builds alike: key paths that come from a reducer's
/// properties, the same call site used with other types, and a call site whose key path
/// expression gives different literals.
@MainActor
struct KeyPathCacheTests {
  struct Counter: Reducer {
    struct State: Equatable { var count = 0 }
    enum Action: Equatable { case increment }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.count += 1
      return .none
    }
  }

  /// A reducer whose scope's case key path is one of its stored properties.
  struct Router: Reducer {
    struct State: Equatable { var counter = Counter.State() }
    @CasePathable
    enum Action: Equatable {
      case first(Counter.Action)
      case second(Counter.Action)
    }

    let route: CaseKeyPath<Action, Counter.Action>

    var body: some ReducerOf<Self> {
      Scope(state: \.counter, action: route) { Counter() }
    }
  }

  @Test func aScopeReadsTheCaseKeyPathOfEachReducerAtTheSameCallSite() {
    let first = Store(initialState: Router.State()) { Router(route: \.first) }
    let second = Store(initialState: Router.State()) { Router(route: \.second) }
    for _ in 1...4 {
      first.send(.first(.increment))
      second.send(.first(.increment))
    }
    for _ in 1...2 {
      second.send(.second(.increment))
      first.send(.second(.increment))
    }
    #expect(first.state.counter.count == 4)
    #expect(second.state.counter.count == 2)
  }

  /// A reusable feature: the same `ifLet` and `forEach` call sites for every `Child`.
  struct Container<Child: Reducer & SendableMetatype>: Reducer
  where Child.State: Identifiable<Int> {
    struct State {
      var optional: Child.State?
      var rows: IdentifiedArrayOf<Child.State> = []
    }
    @CasePathable
    enum Action {
      case optional(Child.Action)
      case rows(IdentifiedAction<Int, Child.Action>)
    }

    let child: Child

    var body: some ReducerOf<Self> {
      Reduce { _, _ in .none }
        .ifLet(\.optional, action: \.optional) { child }
        .forEach(\.rows, action: \.rows) { child }
    }
  }

  struct Adder: Reducer {
    struct State: Identifiable {
      var id: Int
      var total = 0
    }
    enum Action { case add(Int) }
    let factor: Int
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      guard case .add(let amount) = action else { return .none }
      state.total += amount * factor
      return .none
    }
  }

  struct Namer: Reducer {
    struct State: Identifiable {
      var id: Int
      var name = ""
    }
    enum Action { case append(String) }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      guard case .append(let text) = action else { return .none }
      state.name += text
      return .none
    }
  }

  @Test func oneCallSiteServesEveryGenericTypeAndReducerValue() {
    let adders = Store(
      initialState: Container<Adder>.State(optional: .init(id: 0), rows: [.init(id: 1)])
    ) { Container(child: Adder(factor: 1)) }
    let tenfold = Store(
      initialState: Container<Adder>.State(optional: .init(id: 0), rows: [.init(id: 1)])
    ) { Container(child: Adder(factor: 10)) }
    let namers = Store(
      initialState: Container<Namer>.State(optional: .init(id: 0), rows: [.init(id: 1)])
    ) { Container(child: Namer()) }
    for _ in 1...3 {
      adders.send(.optional(.add(1)))
      adders.send(.rows(.element(id: 1, action: .add(2))))
      tenfold.send(.optional(.add(1)))
      namers.send(.optional(.append("a")))
      namers.send(.rows(.element(id: 1, action: .append("b"))))
    }
    #expect(adders.state.optional?.total == 3)
    #expect(adders.state.rows[id: 1]?.total == 6)
    #expect(tenfold.state.optional?.total == 30)
    #expect(namers.state.optional?.name == "aaa")
    #expect(namers.state.rows[id: 1]?.name == "bbb")
  }

  /// A scope that picks its case with a condition: a new key path literal on every evaluation,
  /// different for different reducers at the same call site.
  struct Switcher: Reducer {
    struct State: Equatable { var counter = Counter.State() }
    @CasePathable
    enum Action: Equatable {
      case first(Counter.Action)
      case second(Counter.Action)
    }

    let useFirst: Bool

    var body: some ReducerOf<Self> {
      Scope(state: \.counter, action: useFirst ? \.first : \.second) { Counter() }
    }
  }

  @Test func aCallSiteThatAlternatesItsKeyPathLiteralRoutesEachActionToItsOwnCase() {
    let first = Store(initialState: Switcher.State()) { Switcher(useFirst: true) }
    let second = Store(initialState: Switcher.State()) { Switcher(useFirst: false) }
    for _ in 1...5 {
      first.send(.first(.increment))
      second.send(.second(.increment))
      first.send(.second(.increment))
      second.send(.first(.increment))
    }
    #expect(first.state.counter.count == 5)
    #expect(second.state.counter.count == 5)
  }

  @Test func aCallSiteThatSwitchesItsKeyPathLiteralAfterManyUsesRoutesByTheNewOne() {
    let first = Store(initialState: Switcher.State()) { Switcher(useFirst: true) }
    for _ in 1...100 {
      first.send(.first(.increment))
    }
    let second = Store(initialState: Switcher.State()) { Switcher(useFirst: false) }
    second.send(.first(.increment))
    second.send(.second(.increment))
    second.send(.second(.increment))
    first.send(.second(.increment))
    #expect(first.state.counter.count == 100)
    #expect(second.state.counter.count == 2)
  }

  /// A reusable reducer whose parent passes it fresh key path literals: its one `ifLet` call site
  /// sees `\.left` and `\.right` in turn, with the same types, on every action.
  struct Side: Reducer {
    let state: WritableKeyPath<Pair.State, Counter.State?>
    let action: CaseKeyPath<Pair.Action, Counter.Action>

    var body: some ReducerOf<Pair> {
      Reduce { _, _ in .none }
        .ifLet(state, action: action) { Counter() }
    }
  }

  struct Pair: Reducer {
    struct State: Equatable {
      var left: Counter.State? = Counter.State()
      var right: Counter.State? = Counter.State()
    }
    @CasePathable
    enum Action: Equatable {
      case left(Counter.Action)
      case right(Counter.Action)
    }

    var body: some ReducerOf<Self> {
      Side(state: \.left, action: \.left)
      Side(state: \.right, action: \.right)
    }
  }

  @Test func aReusableReducerGivenDifferentLiteralsRoutesEachToItsOwnChild() {
    let store = Store(initialState: Pair.State()) { Pair() }
    for _ in 1...10 {
      store.send(.left(.increment))
    }
    for _ in 1...3 {
      store.send(.right(.increment))
      store.send(.left(.increment))
    }
    #expect(store.state.left?.count == 13)
    #expect(store.state.right?.count == 3)
  }
}
