import CasePaths

/// The actions of a stack of child features, as its parent receives them.
///
/// ```swift
/// enum Action {
///   case path(StackActionOf<Path>)
/// }
///
/// await store.send(\.path[id: 0].detail.saveButtonTapped)
/// await store.receive(\.path.popFrom)
/// ```
public enum StackAction<State, Action> {
  /// An action of the element with id `id`.
  indirect case element(id: StackElementID, action: Action)

  /// Pops the element with id `id` and every element above it. The parent sees it with the
  /// elements still in the stack; afterwards they are removed and their effects cancelled.
  case popFrom(id: StackElementID)

  /// Pushes `state` under the id `id`, after the parent has seen the action. The id must not be
  /// in the stack; in tests it must also not be past the next id that new elements get (ids
  /// count from 0 in each test), or the push is reported as an issue.
  case push(id: StackElementID, state: State)
}

/// The stack action type for a reducer's elements: `StackActionOf<Path>`.
public typealias StackActionOf<R: Reducer> = StackAction<R.State, R.Action>

extension StackAction: CasePathable {
  public static var allCasePaths: AllCasePaths { AllCasePaths() }

  /// The case paths of a stack action.
  public struct AllCasePaths: Sendable {
    /// The `element(id:action:)` case.
    public var element: AnyCasePath<StackAction, (id: StackElementID, action: Action)> {
      AnyCasePath(
        embed: { .element(id: $0.id, action: $0.action) },
        extract: { stackAction in
          guard case .element(let id, let action) = stackAction else { return nil }
          return (id, action)
        })
    }

    /// The `popFrom(id:)` case.
    public var popFrom: AnyCasePath<StackAction, StackElementID> {
      AnyCasePath(
        embed: { .popFrom(id: $0) },
        extract: { stackAction in
          guard case .popFrom(let id) = stackAction else { return nil }
          return id
        })
    }

    /// The `push(id:state:)` case.
    public var push: AnyCasePath<StackAction, (id: StackElementID, state: State)> {
      AnyCasePath(
        embed: { .push(id: $0.id, state: $0.state) },
        extract: { stackAction in
          guard case .push(let id, let state) = stackAction else { return nil }
          return (id, state)
        })
    }

    /// The actions of the element with id `id`: `\.path[id: 0]`.
    public subscript(id id: StackElementID) -> AnyCasePath<StackAction, Action> {
      AnyCasePath(
        embed: { .element(id: id, action: $0) },
        extract: { stackAction in
          guard case .element(id, let action) = stackAction else { return nil }
          return action
        })
    }
  }
}

extension StackAction: Equatable where State: Equatable, Action: Equatable {}
extension StackAction: Hashable where State: Hashable, Action: Hashable {}
extension StackAction: Sendable where State: Sendable, Action: Sendable {}

extension Case {
  /// The case key path to one stack element's actions: `\.path[id: 0]`.
  public subscript<State, Action>(id id: StackElementID) -> Case<Action>
  where Value == StackAction<State, Action> {
    Case<Action>(
      embed: { (action: Action) -> Any in
        self._embed(StackAction<State, Action>.element(id: id, action: action))
      },
      extract: { (root: Any) -> Action? in
        guard case .element(id, let action) = self._extract(from: root) else { return nil }
        return action
      }
    )
  }
}
