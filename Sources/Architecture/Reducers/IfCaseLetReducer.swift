import CasePaths
import CustomDump
import IssueReporting

extension Reducer {
  /// Runs a child reducer on one case of an enum state while the state is in that case, before
  /// this reducer.
  ///
  /// ```swift
  /// struct App: Reducer {
  ///   @CasePathable enum State { case loggedIn(Home.State), loggedOut(Login.State) }
  ///   @CasePathable enum Action { case loggedIn(Home.Action), loggedOut(Login.Action) }
  ///
  ///   var body: some ReducerOf<Self> {
  ///     Reduce { state, action in
  ///       switch action {
  ///       case .loggedOut(.loginSucceeded):
  ///         state = .loggedIn(Home.State())
  ///         return .none
  ///       default:
  ///         return .none
  ///       }
  ///     }
  ///     .ifCaseLet(\.loggedIn, action: \.loggedIn) { Home() }
  ///     .ifCaseLet(\.loggedOut, action: \.loggedOut) { Login() }
  ///   }
  /// }
  /// ```
  ///
  /// When the state leaves the case, the child's running effects are cancelled. A child action
  /// that arrives while the state is in another case is reported as an issue.
  ///
  /// Case key paths are converted to case paths once per distinct key path (see ``Scope``), so a
  /// `body` that runs for every action does not convert `\.child` again.
  @inlinable
  public func ifCaseLet<CaseState, CaseAction, Case: Reducer>(
    _ toCaseState: CaseKeyPath<State, CaseState>,
    action toCaseAction: CaseKeyPath<Action, CaseAction>,
    @ReducerBuilder<CaseState, CaseAction> then case: () -> Case,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _IfCaseLetReducer<Self, Case>
  where CaseState == Case.State, CaseAction == Case.Action {
    _IfCaseLetReducer(
      parent: self,
      child: `case`(),
      toChildState: _KeyPathCache.shared.casePath(toCaseState),
      stateKeyPath: toCaseState,
      toChildAction: _KeyPathCache.shared.casePath(toCaseAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer built by ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)``.
public struct _IfCaseLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  @usableFromInline
  let parent: Parent

  @usableFromInline
  let child: Child

  @usableFromInline
  let toChildState: AnyCasePath<Parent.State, Child.State>

  /// The case key path itself, to identify the case in navigation ids.
  @usableFromInline
  let stateKeyPath: AnyKeyPath

  @usableFromInline
  let toChildAction: AnyCasePath<Parent.Action, Child.Action>

  @usableFromInline
  let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    child: Child,
    toChildState: AnyCasePath<Parent.State, Child.State>,
    stateKeyPath: AnyKeyPath,
    toChildAction: AnyCasePath<Parent.Action, Child.Action>,
    location: SourceLocation
  ) {
    self.parent = parent
    self.child = child
    self.toChildState = toChildState
    self.stateKeyPath = stateKeyPath
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
    let childIDBefore = toChildState.extract(from: state).map {
      _NavigationID(keyPath: stateKeyPath, state: $0)
    }
    let parentEffects = parent.reduce(into: &state, action: action)
    guard let childIDBefore else {
      return childEffects.merge(with: parentEffects)
    }
    let childIDAfter = toChildState.extract(from: state).map {
      _NavigationID(keyPath: stateKeyPath, state: $0)
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
    guard var childState = toChildState.extract(from: state) else {
      reportOtherCase(action: action)
      return .none
    }
    let navigationID = _NavigationID(keyPath: stateKeyPath, state: childState)
    let toChildAction = self.toChildAction
    let effect = child.reduce(into: &childState, action: childAction)
    state = toChildState.embed(childState)
    return effect.map { toChildAction.embed($0) }._presented(as: navigationID)
  }

  @usableFromInline
  func reportOtherCase(action: Parent.Action) {
    reportIssue(
      """
      An 'ifCaseLet' at \(location.fileID):\(location.line) received a child action when state \
      was in another case. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      The child reducer did not run. This can happen when:

      • The parent changed the state to another case before the 'ifCaseLet' ran. Apply \
      'ifCaseLet' to the parent reducer ('Reduce { … }.ifCaseLet(…)'), so the child runs first.

      • An effect sent this action after the state left the case. The child's effects are \
      cancelled when the state leaves its case; effects started elsewhere must be cancelled too.

      • The action was sent to a scoped store after the state left the case.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }
}
