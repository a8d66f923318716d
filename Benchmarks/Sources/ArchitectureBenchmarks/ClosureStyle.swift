import Architecture

// The seeds' earlier style: a reducer is a struct holding a closure, and composition wraps
// closures in closures (`pullback`, `combine`, `forEach`). Written here only to compare with.

struct ClosureReducer<State, Action> {
  let run: (inout State, Action) -> Effect<Action>

  static func combine(_ reducers: ClosureReducer...) -> ClosureReducer {
    ClosureReducer { state, action in
      var effect = Effect<Action>.none
      for reducer in reducers {
        effect = effect.merge(with: reducer.run(&state, action))
      }
      return effect
    }
  }

  func pullback<GlobalState, GlobalAction>(
    state toLocalState: WritableKeyPath<GlobalState, State>,
    action toLocalAction: AnyCasePath<GlobalAction, Action>
  ) -> ClosureReducer<GlobalState, GlobalAction> {
    ClosureReducer<GlobalState, GlobalAction> { globalState, globalAction in
      guard let localAction = toLocalAction.extract(from: globalAction) else { return .none }
      return self.run(&globalState[keyPath: toLocalState], localAction)
        .map { toLocalAction.embed($0) }
    }
  }

  func forEach<GlobalState, GlobalAction, ID: Hashable & Sendable>(
    state toElements: WritableKeyPath<GlobalState, IdentifiedArray<ID, State>>,
    action toElementAction: AnyCasePath<GlobalAction, IdentifiedAction<ID, Action>>
  ) -> ClosureReducer<GlobalState, GlobalAction> {
    ClosureReducer<GlobalState, GlobalAction> { globalState, globalAction in
      guard case .element(let id, let localAction) = toElementAction.extract(from: globalAction),
        globalState[keyPath: toElements][id: id] != nil
      else { return .none }
      return self.run(&globalState[keyPath: toElements][id: id]!, localAction)
        .map { toElementAction.embed(.element(id: id, action: $0)) }
    }
  }

  func optional<GlobalState, GlobalAction>(
    state toLocalState: WritableKeyPath<GlobalState, State?>,
    action toLocalAction: AnyCasePath<GlobalAction, Action>
  ) -> ClosureReducer<GlobalState, GlobalAction> {
    ClosureReducer<GlobalState, GlobalAction> { globalState, globalAction in
      guard let localAction = toLocalAction.extract(from: globalAction),
        globalState[keyPath: toLocalState] != nil
      else { return .none }
      return self.run(&globalState[keyPath: toLocalState]!, localAction)
        .map { toLocalAction.embed($0) }
    }
  }

  /// A reducer that can refer to itself, for recursive features.
  static func recurse(
    _ reducer: @escaping (ClosureReducer, inout State, Action) -> Effect<Action>
  ) -> ClosureReducer {
    var recursive: ClosureReducer!
    recursive = ClosureReducer { state, action in reducer(recursive, &state, action) }
    return recursive
  }
}

@MainActor let closureLeaf = ClosureReducer<Leaf.State, Leaf.Action> { state, _ in
  state.count &+= 1
  return .none
}

func closureLevel<Child, ChildAction>(
  _ child: ClosureReducer<Child, ChildAction>
) -> ClosureReducer<ClosureLevelState<Child>, ClosureLevelAction<ChildAction>> {
  .combine(
    child.pullback(state: \.child, action: ClosureLevelAction.childCase),
    ClosureReducer { _, _ in .none }
  )
}

struct ClosureLevelState<Child> { var child: Child }

enum ClosureLevelAction<Child> {
  case child(Child)

  // Written by hand: the closure style predates case key paths.
  static var childCase: AnyCasePath<Self, Child> {
    AnyCasePath(
      embed: { .child($0) },
      extract: {
        guard case .child(let child) = $0 else { return nil }
        return child
      }
    )
  }
}

@MainActor let closureThreeLevels = closureLevel(closureLevel(closureLevel(closureLeaf)))

func closureThreeLevelsState() -> ClosureLevelState<
  ClosureLevelState<ClosureLevelState<Leaf.State>>
> {
  .init(child: .init(child: .init(child: .init())))
}

/// The `ifLet` chain's shape in the closure style: optional state at each level.
func closureOptionalLevel<Child, ChildAction>(
  _ child: ClosureReducer<Child, ChildAction>
) -> ClosureReducer<ClosureOptionalState<Child>, ClosureLevelAction<ChildAction>> {
  .combine(
    ClosureReducer { _, _ in .none },
    child.optional(state: \.child, action: ClosureLevelAction.childCase)
  )
}

struct ClosureOptionalState<Child> { var child: Child? }

@MainActor let closureOptionalThreeLevels = closureOptionalLevel(
  closureOptionalLevel(closureOptionalLevel(closureLeaf)))

/// The `forEach` chain's shape in the closure style: one identified element at each level.
func closureElementLevel<Child: Identifiable<Int>, ChildAction>(
  _ child: ClosureReducer<Child, ChildAction>
) -> ClosureReducer<ClosureElementState<Child>, ClosureElementAction<ChildAction>> {
  .combine(
    ClosureReducer { _, _ in .none },
    child.forEach(state: \.rows, action: ClosureElementAction.rowsCase)
  )
}

struct ClosureElementState<Child: Identifiable<Int>>: Identifiable {
  var id = 0
  var rows: IdentifiedArrayOf<Child>
}

enum ClosureElementAction<Child> {
  case rows(IdentifiedAction<Int, Child>)

  static var rowsCase: AnyCasePath<Self, IdentifiedAction<Int, Child>> {
    AnyCasePath(
      embed: { .rows($0) },
      extract: {
        guard case .rows(let rows) = $0 else { return nil }
        return rows
      }
    )
  }
}

@MainActor let closureElementLeaf = ClosureReducer<ElementLeaf.State, ElementLeaf.Action> {
  state, _ in
  state.count &+= 1
  return .none
}

@MainActor let closureElementThreeLevels = closureElementLevel(
  closureElementLevel(closureElementLevel(closureElementLeaf)))

/// The recursive case study in the closure style.
@MainActor let closureNested = ClosureReducer<Nested.State, Nested.Action>.recurse {
  this, state, action in
  ClosureReducer<Nested.State, Nested.Action>.combine(
    ClosureReducer { state, action in
      switch action {
      case .nameChanged(let name):
        recordStackDepth()
        state.name = name
        return .none
      case .rows:
        return .none
      }
    },
    this.forEach(state: \.rows, action: AnyCasePath(\.rows))
  )
  .run(&state, action)
}
