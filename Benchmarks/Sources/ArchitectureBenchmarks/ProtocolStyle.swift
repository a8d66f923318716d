import Architecture

// Features written the way this library intends: reducers as types, composed with operators.

/// A leaf feature: one counter.
struct Leaf: Reducer {
  struct State { var count = 0 }
  enum Action { case increment }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count &+= 1
    return .none
  }
}

/// An action that starts an effect, and the action the effect sends back.
struct RoundTrip: Reducer {
  struct State { var count = 0 }
  enum Action {
    case start
    case finished
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { send in await send(.finished) }
    case .finished:
      state.count &+= 1
      return .none
    }
  }
}

// A chain of three concrete features, each scoping to the next, ending in `Leaf`.

struct Level3: Reducer {
  struct State { var child = Leaf.State() }
  @CasePathable
  enum Action { case child(Leaf.Action) }

  var body: some ReducerOf<Self> {
    Scope(state: \.child, action: \.child) { Leaf() }
    Reduce { _, _ in .none }
  }
}

struct Level2: Reducer {
  struct State { var child = Level3.State() }
  @CasePathable
  enum Action { case child(Level3.Action) }

  var body: some ReducerOf<Self> {
    Scope(state: \.child, action: \.child) { Level3() }
    Reduce { _, _ in .none }
  }
}

struct Level1: Reducer {
  struct State { var child = Level2.State() }
  @CasePathable
  enum Action { case child(Level2.Action) }

  var body: some ReducerOf<Self> {
    Scope(state: \.child, action: \.child) { Level2() }
    Reduce { _, _ in .none }
  }
}

/// The recursive case study: rows of itself.
struct Nested: Reducer {
  struct State: Identifiable {
    let id: Int
    var name = ""
    var rows: IdentifiedArrayOf<State> = []
  }

  @CasePathable
  indirect enum Action {
    case nameChanged(String)
    case rows(IdentifiedActionOf<Nested>)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .nameChanged(let name):
        recordStackDepth()
        state.name = name
        return .none
      case .rows:
        return .none
      }
    }
    .forEach(\.rows, action: \.rows) {
      Nested()
    }
  }
}

// The same three levels with optional child state (`ifLet`) and with an identified array of one
// element (`forEach`). These levels are generic, as reusable features are.

/// A reducer the benchmark can create without arguments.
protocol BenchmarkReducer: Reducer, SendableMetatype { init() }
extension Leaf: BenchmarkReducer {}

struct OptionalLevel<Child: BenchmarkReducer>: BenchmarkReducer {
  struct State { var child: Child.State? }
  @CasePathable
  enum Action { case child(Child.Action) }

  var body: some ReducerOf<Self> {
    Reduce { _, _ in .none }
      .ifLet(\.child, action: \.child) { Child() }
  }
}

/// A leaf that can be an element of an identified array.
struct ElementLeaf: BenchmarkReducer {
  struct State: Identifiable {
    var id = 0
    var count = 0
  }
  enum Action { case increment }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count &+= 1
    return .none
  }
}

struct ElementLevel<Child: BenchmarkReducer>: BenchmarkReducer
where Child.State: Identifiable<Int> {
  struct State: Identifiable {
    var id = 0
    var rows: IdentifiedArrayOf<Child.State>
  }
  @CasePathable
  enum Action { case rows(IdentifiedAction<Int, Child.Action>) }

  var body: some ReducerOf<Self> {
    Reduce { _, _ in .none }
      .forEach(\.rows, action: \.rows) { Child() }
  }
}
