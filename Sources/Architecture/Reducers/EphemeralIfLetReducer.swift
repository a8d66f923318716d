import CasePaths

extension Reducer {
  /// Runs an optional child without logic of its own, such as an alert held in a plain optional:
  /// any of its actions reaches the parent and then sets it to `nil`, unless the parent replaced
  /// it with another one.
  ///
  /// ```swift
  /// struct State { var alert: AlertState<Action.Alert>? }
  /// // …
  /// .ifLet(\.alert, action: \.alert)
  /// ```
  @inlinable
  public func ifLet<WrappedState: _EphemeralState, WrappedAction>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: CaseKeyPath<Action, WrappedAction>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _EphemeralIfLetReducer<Self, WrappedState, WrappedAction> {
    _EphemeralIfLetReducer(
      parent: self, child: Reduce(EmptyReducer()), toWrappedState: toWrappedState,
      toWrappedAction: _KeyPathCache.shared.casePath(toWrappedAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// ``ifLet(_:action:fileID:filePath:line:column:)-<WrappedState: _EphemeralState>`` with a
  /// reducer that also sees the child's actions.
  @inlinable
  public func ifLet<WrappedState: _EphemeralState, WrappedAction>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: CaseKeyPath<Action, WrappedAction>,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> some Reducer<
      WrappedState, WrappedAction
    >,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _EphemeralIfLetReducer<Self, WrappedState, WrappedAction> {
    _EphemeralIfLetReducer(
      parent: self, child: Reduce(wrapped()), toWrappedState: toWrappedState,
      toWrappedAction: _KeyPathCache.shared.casePath(toWrappedAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// ``ifLet(_:action:fileID:filePath:line:column:)-<WrappedState: _EphemeralState>`` with a
  /// case path (`/Action.alert`), the spelling from before case key paths.
  @available(
    *, deprecated, message: "Use a case key path, like 'ifLet(\\.alert, action: \\.alert)'."
  )
  @inlinable
  public func ifLet<WrappedState: _EphemeralState, WrappedAction>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: AnyCasePath<Action, WrappedAction>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _EphemeralIfLetReducer<Self, WrappedState, WrappedAction> {
    _EphemeralIfLetReducer(
      parent: self, child: Reduce(EmptyReducer()), toWrappedState: toWrappedState,
      toWrappedAction: toWrappedAction,
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// ``ifLet(_:action:then:fileID:filePath:line:column:)-<WrappedState: _EphemeralState>`` with
  /// a case path (`/Action.alert`), the spelling from before case key paths.
  @available(
    *, deprecated, message: "Use a case key path, like 'ifLet(\\.alert, action: \\.alert)'."
  )
  @inlinable
  public func ifLet<WrappedState: _EphemeralState, WrappedAction>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: AnyCasePath<Action, WrappedAction>,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> some Reducer<
      WrappedState, WrappedAction
    >,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _EphemeralIfLetReducer<Self, WrappedState, WrappedAction> {
    _EphemeralIfLetReducer(
      parent: self, child: Reduce(wrapped()), toWrappedState: toWrappedState,
      toWrappedAction: toWrappedAction,
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }
}

/// The reducer built by ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)-<WrappedState: _EphemeralState>``.
public struct _EphemeralIfLetReducer<Parent: Reducer, WrappedState, WrappedAction>: Reducer {
  @usableFromInline
  let base: _IfLetReducer<Parent, Reduce<WrappedState, WrappedAction>>

  @usableFromInline
  let toWrappedState: WritableKeyPath<Parent.State, WrappedState?>

  @usableFromInline
  let toWrappedAction: AnyCasePath<Parent.Action, WrappedAction>

  @usableFromInline
  init(
    parent: Parent,
    child: Reduce<WrappedState, WrappedAction>,
    toWrappedState: WritableKeyPath<Parent.State, WrappedState?>,
    toWrappedAction: AnyCasePath<Parent.Action, WrappedAction>,
    location: SourceLocation
  ) {
    self.base = _IfLetReducer(
      parent: parent, child: child, toChildState: toWrappedState,
      toChildAction: toWrappedAction, location: location)
    self.toWrappedState = toWrappedState
    self.toWrappedAction = toWrappedAction
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let dismissed =
      toWrappedAction.extract(from: action) == nil
      ? nil
      : state[keyPath: toWrappedState].map { identifiableID(of: $0) }
    let effects = base.reduce(into: &state, action: action)
    if let dismissed, let current = state[keyPath: toWrappedState],
      identifiableID(of: current) == dismissed
    {
      state[keyPath: toWrappedState] = nil
    }
    return effects
  }
}
