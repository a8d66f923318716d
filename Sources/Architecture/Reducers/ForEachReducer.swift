import CasePaths
import CustomDump
import IdentifiedCollections
import IssueReporting

extension Reducer {
  /// Runs an element reducer on each element of an identified array, for actions sent to an
  /// element, before this reducer.
  ///
  /// ```swift
  /// struct Todos: Reducer {
  ///   struct State { var todos: IdentifiedArrayOf<Todo.State> = [] }
  ///   @CasePathable enum Action { case todos(IdentifiedActionOf<Todo>) }
  ///
  ///   var body: some ReducerOf<Self> {
  ///     Reduce { state, action in
  ///       switch action {
  ///       case .todos(.element(let id, .deleteButtonTapped)):
  ///         state.todos.remove(id: id)  // the element has already handled its own action
  ///         return .none
  ///       case .todos:
  ///         return .none
  ///       }
  ///     }
  ///     .forEach(\.todos, action: \.todos) {
  ///       Todo()
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// The element runs first, so it sees its action even when the parent then removes it. When an
  /// element is removed, its running effects are cancelled, and each element's cancellation ids
  /// are its own. An action for an id that is not in the array is reported as an issue.
  ///
  /// Case key paths are converted to case paths once per distinct key path (see ``Scope``), so a
  /// `body` that runs for every action does not convert `\.child` again.
  @inlinable
  public func forEach<ElementState, ElementAction, ID: Hashable & Sendable, Element: Reducer>(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ID, ElementState>>,
    action toElementAction: CaseKeyPath<Action, IdentifiedAction<ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _ForEachReducer<Self, ID, Element>
  where ElementState == Element.State, ElementAction == Element.Action {
    _ForEachReducer(
      parent: self,
      element: element(),
      toElementsState: toElementsState,
      toElementAction: _KeyPathCache.shared.casePath(toElementAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer built by ``Reducer/forEach(_:action:element:fileID:filePath:line:column:)``.
public struct _ForEachReducer<Parent: Reducer, ID: Hashable & Sendable, Element: Reducer>:
  Reducer
{
  @usableFromInline
  let parent: Parent

  @usableFromInline
  let element: Element

  @usableFromInline
  let toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>

  @usableFromInline
  let toElementAction: AnyCasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>

  @usableFromInline
  let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    element: Element,
    toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>,
    toElementAction: AnyCasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>,
    location: SourceLocation
  ) {
    self.parent = parent
    self.element = element
    self.toElementsState = toElementsState
    self.toElementAction = toElementAction
    self.location = location
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<
    Parent.Action
  > {
    let elementEffects = reduceElement(into: &state, action: action)
    let elementsBefore = state[keyPath: toElementsState]
    let parentEffects = parent.reduce(into: &state, action: action)
    let removedIDs = removedIDs(before: elementsBefore, after: state[keyPath: toElementsState])
    guard !removedIDs.isEmpty else {
      return elementEffects.merge(with: parentEffects)
    }
    let cancelEffects = Effect<Parent.Action>.merge(
      removedIDs.map {
        .cancel(id: _NavigationID(keyPath: toElementsState, identity: AnyHashable($0)))
      }
    )
    return elementEffects.merge(with: parentEffects).merge(with: cancelEffects)
  }

  @inlinable
  @inline(__always)
  func reduceElement(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<
    Parent.Action
  > {
    guard case .element(let id, let elementAction) = toElementAction.extract(from: action)
    else { return .none }
    guard state[keyPath: toElementsState][id: id] != nil else {
      reportMissingElement(id: id, action: action)
      return .none
    }
    let navigationID = _NavigationID(keyPath: toElementsState, identity: AnyHashable(id))
    let toElementAction = self.toElementAction
    return element.reduce(into: &state[keyPath: toElementsState][id: id]!, action: elementAction)
      .map { toElementAction.embed(.element(id: id, action: $0)) }
      ._presented(as: navigationID)
  }

  /// The ids in `before` that are not in `after`; cheap when the ids did not change.
  @usableFromInline
  func removedIDs(
    before: IdentifiedArray<ID, Element.State>,
    after: IdentifiedArray<ID, Element.State>
  ) -> [ID] {
    let idsBefore = before.ids
    let idsAfter = after.ids
    guard idsBefore != idsAfter else { return [] }
    return idsBefore.filter { !idsAfter.contains($0) }
  }

  @usableFromInline
  func reportMissingElement(id: ID, action: Parent.Action) {
    reportIssue(
      """
      A 'forEach' at \(location.fileID):\(location.line) received an action for a missing \
      element. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      No element has the id \(String(customDumping: id)), so the element reducer did not run. \
      This can happen when:

      • The parent removed the element before the 'forEach' ran. Apply 'forEach' to the parent \
      reducer ('Reduce { … }.forEach(…)'), so the element runs first.

      • An effect sent this action after the element was removed. An element's effects are \
      cancelled when it is removed; effects started elsewhere must be cancelled too.

      • The action was sent to a scoped store after the element was removed.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }
}
