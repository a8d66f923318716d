import CasePaths

/// An action sent to one element of an identified collection of child features.
///
/// Embed it in a parent's actions for ``Reducer/forEach(_:action:element:fileID:filePath:line:column:)``:
///
/// ```swift
/// @CasePathable
/// enum Action {
///   case rows(IdentifiedActionOf<Row>)
/// }
///
/// store.send(.rows(.element(id: row.id, action: .toggleButtonTapped)))
/// await testStore.receive(\.rows[id: row.id].toggled)
/// ```
@CasePathable
public enum IdentifiedAction<ID: Hashable & Sendable, Action>: CasePathable {
  /// An action for the element with the given id.
  case element(id: ID, action: Action)
}

/// The identified action type for a reducer's elements: `IdentifiedActionOf<Row>`.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable

extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}
extension IdentifiedAction: Sendable where Action: Sendable {}

extension Case {
  /// The case key path to one element's actions: `\.rows[id: id]`.
  public subscript<ID: Hashable & Sendable, Action>(id id: ID) -> Case<Action>
  where Value == IdentifiedAction<ID, Action> {
    Case<Action>(
      embed: { (action: Action) -> Any in
        self._embed(IdentifiedAction<ID, Action>.element(id: id, action: action))
      },
      extract: { (root: Any) -> Action? in
        guard case .element(id, let action) = self._extract(from: root) else { return nil }
        return action
      }
    )
  }
}
