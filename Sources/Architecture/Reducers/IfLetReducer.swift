import CasePaths
import CustomDump
import IssueReporting

extension Reducer {
  /// Runs a child reducer on optional child state while it is present, before this reducer.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   Reduce { state, action in
  ///     switch action {
  ///     case .settingsButtonTapped:
  ///       state.settings = Settings.State()
  ///       return .none
  ///     case .settings(.closeButtonTapped):
  ///       state.settings = nil   // the child has already handled its own action
  ///       return .none
  ///     case .settings:
  ///       return .none
  ///     }
  ///   }
  ///   .ifLet(\.settings, action: \.settings) {
  ///     Settings()
  ///   }
  /// }
  /// ```
  ///
  /// The child runs first, so it sees its action even when the parent then sets it to `nil`.
  /// When the child state goes away (or is replaced by a state with another `id`), the child's
  /// running effects are cancelled. A child action that arrives while the state is `nil` is
  /// reported as an issue.
  ///
  /// Case key paths are converted to case paths once per distinct key path (see ``Scope``), so a
  /// `body` that runs for every action does not convert `\.child` again.
  ///
  /// - Parameters:
  ///   - toWrappedState: The optional child state.
  ///   - toWrappedAction: The case of the child's actions.
  ///   - wrapped: The child reducer.
  @inlinable
  public func ifLet<WrappedState, WrappedAction, Wrapped: Reducer>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: CaseKeyPath<Action, WrappedAction>,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> Wrapped,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _IfLetReducer<Self, Wrapped>
  where WrappedState == Wrapped.State, WrappedAction == Wrapped.Action {
    _IfLetReducer(
      parent: self,
      child: wrapped(),
      toChildState: toWrappedState,
      toChildAction: _KeyPathCache.shared.casePath(toWrappedAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer built by ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)``.
public struct _IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  @usableFromInline
  let parent: Parent

  @usableFromInline
  let child: Child

  @usableFromInline
  let toChildState: WritableKeyPath<Parent.State, Child.State?>

  @usableFromInline
  let toChildAction: AnyCasePath<Parent.Action, Child.Action>

  @usableFromInline
  let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    child: Child,
    toChildState: WritableKeyPath<Parent.State, Child.State?>,
    toChildAction: AnyCasePath<Parent.Action, Child.Action>,
    location: SourceLocation
  ) {
    self.parent = parent
    self.child = child
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.location = location
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<
    Parent.Action
  > {
    let childEffects = reduceChild(into: &state, action: action)
    let childIDBefore = state[keyPath: toChildState].map {
      _NavigationID(keyPath: toChildState, state: $0)
    }
    let parentEffects = parent.reduce(into: &state, action: action)
    guard let childIDBefore else {
      return childEffects.merge(with: parentEffects)
    }
    let childIDAfter = state[keyPath: toChildState].map {
      _NavigationID(keyPath: toChildState, state: $0)
    }
    let cancelEffect: Effect<Parent.Action> =
      childIDBefore == childIDAfter ? .none : .cancel(id: childIDBefore)
    return childEffects.merge(with: parentEffects).merge(with: cancelEffect)
  }

  @inlinable
  @inline(__always)
  func reduceChild(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<
    Parent.Action
  > {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    guard let childState = state[keyPath: toChildState] else {
      reportMissingChild(action: action)
      return .none
    }
    let navigationID = _NavigationID(keyPath: toChildState, state: childState)
    let toChildAction = self.toChildAction
    return child.reduce(into: &state[keyPath: toChildState]!, action: childAction)
      .map { toChildAction.embed($0) }
      ._presented(as: navigationID)
  }

  @usableFromInline
  func reportMissingChild(action: Parent.Action) {
    reportIssue(
      """
      An 'ifLet' at \(location.fileID):\(location.line) received a child action when child state \
      was 'nil'. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      The child reducer did not run. This can happen when:

      • The parent set the child state to 'nil' before the 'ifLet' ran. Apply 'ifLet' to the \
      parent reducer ('Reduce { … }.ifLet(…)'), so the child runs first.

      • An effect sent this action after the child state became 'nil'. The child's effects are \
      cancelled when it goes away; effects started elsewhere must be cancelled too.

      • The action was sent to a scoped store after the child state became 'nil'.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }
}
