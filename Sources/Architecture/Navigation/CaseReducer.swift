/// A reducer made from an enum of reducers: `@Reducer enum Destination { case settings(Settings) }`.
///
/// ``Reducer()`` conforms such an enum: it generates a `State` enum and an `Action` enum with a
/// case per reducer, and a static `body` that runs each case's reducer while the state is in
/// that case. The enum is never instantiated; its cases only name the reducers.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case settings(Settings)
///   case alert(AlertState<Alert>)      // no logic: dismissed by any of its actions
///   @ReducerCaseIgnored
///   case banner(String)                // state only, no actions
///   enum Alert { case confirmDeletion }
/// }
/// extension Destination.State: Equatable {}
///
/// // In the parent:
/// @Presents var destination: Destination.State?
/// case destination(PresentationAction<Destination.Action>)
/// .ifLet(\.$destination, action: \.destination)
/// ```
public protocol CaseReducer<State, Action>: Reducer
where
  State: CaseReducerState, State.StateReducer == Self, Body: Reducer, Body.State == State,
  Body.Action == Action
{
  /// The reducer that runs each case's reducer on its case of the state.
  @ReducerBuilder<State, Action>
  static var body: Body { get }
}

extension CaseReducer {
  /// The static ``body``: an enum reducer has no instances of its own.
  @inlinable
  public var body: Body { Self.body }
}

/// The `State` of an enum reducer, which names the reducer it belongs to, so that
/// `ifLet(\.$destination, action: \.destination)` and `forEach(\.path, action: \.path)` find it
/// without a trailing closure.
public protocol CaseReducerState {
  /// The enum reducer whose state this is.
  associatedtype StateReducer: CaseReducer where StateReducer.State == Self
}

extension Reducer {
  /// Presents an enum reducer's state, running the enum's own `body`:
  /// `.ifLet(\.$destination, action: \.destination)`.
  ///
  /// See ``ifLet(_:action:destination:fileID:filePath:line:column:)``.
  @inlinable
  public func ifLet<DestinationState: CaseReducerState, DestinationAction>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, DestinationState.StateReducer.Body>
  where DestinationState.StateReducer.Action == DestinationAction {
    ifLet(
      toPresentationState, action: toPresentationAction,
      destination: { DestinationState.StateReducer.body },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Runs a stack of an enum reducer's states, with the enum's own `body`:
  /// `.forEach(\.path, action: \.path)`.
  ///
  /// See ``forEach(_:action:destination:fileID:filePath:line:column:)``.
  @inlinable
  public func forEach<DestinationState: CaseReducerState, DestinationAction>(
    _ toStackState: WritableKeyPath<State, StackState<DestinationState>>,
    action toStackAction: CaseKeyPath<Action, StackAction<DestinationState, DestinationAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _StackReducer<Self, DestinationState.StateReducer.Body>
  where DestinationState.StateReducer.Action == DestinationAction {
    forEach(
      toStackState, action: toStackAction,
      destination: { DestinationState.StateReducer.body },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
