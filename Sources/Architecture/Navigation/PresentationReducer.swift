import CasePaths
import CustomDump
import IssueReporting

extension Reducer {
  /// Runs a presented child feature while its ``PresentationState`` holds a value, before this
  /// reducer, and ends the child's effects when it is dismissed.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   Reduce { state, action in
  ///     switch action {
  ///     case .composeButtonTapped:
  ///       state.compose = Compose.State()
  ///       return .none
  ///     case .compose(.presented(.delegate(.sent(let message)))):
  ///       state.outbox.append(message)
  ///       return .none
  ///     case .compose:
  ///       return .none
  ///     }
  ///   }
  ///   .ifLet(\.$compose, action: \.compose) {
  ///     Compose()
  ///   }
  /// }
  /// ```
  ///
  /// - The child reduces `.presented` actions first, so the parent sees them after the child
  ///   has, even when the parent then dismisses it.
  /// - `.dismiss` reaches the parent first, with the child still present; afterwards the child's
  ///   state is set to `nil`, unless the parent presented another child meanwhile.
  /// - When the child goes away, or another child takes its place (another case of an enum
  ///   destination, or another `id` of an `Identifiable` one), its effects are cancelled.
  /// - The child's effects can dismiss it with `@Dependency(\.dismiss)`.
  /// - An action for a child that is not presented is reported as an issue, and changes nothing.
  ///
  /// A parent's ``Effect/cancel(id:)`` also cancels its children's effects that use the same id;
  /// a child's reaches only its own and its descendants'.
  ///
  /// - Parameters:
  ///   - toPresentationState: The presentation state, `\.$destination`.
  ///   - toPresentationAction: The case of the child's presentation actions, `\.destination`.
  ///   - destination: The child reducer.
  @inlinable
  public func ifLet<DestinationState, DestinationAction, Destination: Reducer>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    _PresentationReducer(
      parent: self,
      destination: destination(),
      toPresentationState: toPresentationState,
      toPresentationAction: _KeyPathCache.shared.casePath(toPresentationAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// Presents a child that has no logic of its own, such as an alert's state: any of its
  /// actions reaches the parent and then dismisses it.
  ///
  /// ```swift
  /// .ifLet(\.$alert, action: \.alert)
  /// ```
  @inlinable
  public func ifLet<DestinationState: _EphemeralState, DestinationAction>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, EmptyReducer<DestinationState, DestinationAction>> {
    ifLet(
      toPresentationState, action: toPresentationAction, destination: { EmptyReducer() },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// ``ifLet(_:action:destination:fileID:filePath:line:column:)`` with a case path
  /// (`/Action.child`), the spelling from before case key paths.
  @available(
    *, deprecated,
    message: "Use a case key path, like 'ifLet(\\.$child, action: \\.child)'."
  )
  @inlinable
  public func ifLet<DestinationState, DestinationAction, Destination: Reducer>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: AnyCasePath<Action, PresentationAction<DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    _PresentationReducer(
      parent: self,
      destination: destination(),
      toPresentationState: toPresentationState,
      toPresentationAction: toPresentationAction,
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// ``ifLet(_:action:fileID:filePath:line:column:)-<DestinationState: _EphemeralState>`` with
  /// a case path, the spelling from before case key paths.
  @available(
    *, deprecated,
    message: "Use a case key path, like 'ifLet(\\.$alert, action: \\.alert)'."
  )
  @inlinable
  public func ifLet<DestinationState: _EphemeralState, DestinationAction>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: AnyCasePath<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, EmptyReducer<DestinationState, DestinationAction>> {
    _PresentationReducer(
      parent: self,
      destination: EmptyReducer(),
      toPresentationState: toPresentationState,
      toPresentationAction: toPresentationAction,
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// State with no logic of its own, presented until any of its actions arrives: an alert, a
/// confirmation dialog. ``Reducer/ifLet(_:action:fileID:filePath:line:column:)`` dismisses it
/// after the parent has seen the action, and so does an enum destination for a case marked
/// ``ReducerCaseEphemeral()``.
public protocol _EphemeralState {}

/// Whether `action` dismisses `state` once the parent has seen it: when `state` is ephemeral, or
/// is in an enum case whose payload is ephemeral and `action` is in the case of the same name
/// (an alert's action, not an action for another case of the destination).
@usableFromInline
func dismissesEphemeralState(_ state: Any, action: Any) -> Bool {
  if state is any _EphemeralState { return true }
  guard isEnum(type(of: state)) else { return false }
  let mirror = Mirror(reflecting: state)
  guard let payload = mirror.children.first, payload.value is any _EphemeralState else {
    return false
  }
  guard isEnum(type(of: action)) else { return true }
  return Mirror(reflecting: action).children.first?.label == payload.label
}

/// The reducer built by ``Reducer/ifLet(_:action:destination:fileID:filePath:line:column:)``.
public struct _PresentationReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  @usableFromInline
  let parent: Parent

  @usableFromInline
  let destination: Destination

  @usableFromInline
  let toPresentationState: WritableKeyPath<Parent.State, PresentationState<Destination.State>>

  @usableFromInline
  let toPresentationAction: AnyCasePath<Parent.Action, PresentationAction<Destination.Action>>

  @usableFromInline
  let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    destination: Destination,
    toPresentationState: WritableKeyPath<Parent.State, PresentationState<Destination.State>>,
    toPresentationAction: AnyCasePath<Parent.Action, PresentationAction<Destination.Action>>,
    location: SourceLocation
  ) {
    self.parent = parent
    self.destination = destination
    self.toPresentationState = toPresentationState
    self.toPresentationAction = toPresentationAction
    self.location = location
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let presentedBefore =
      state[keyPath: toPresentationState].presentedID ?? currentID(in: state)
    var destinationEffects: Effect<Parent.Action> = .none
    // The child that this action dismisses once the parent has seen it.
    var dismissing: _NavigationID?

    switch toPresentationAction.extract(from: action) {
    case .none:
      break

    case .dismiss:
      if let id = currentID(in: state) {
        dismissing = id
      } else {
        reportMissingDestination(action: action)
      }

    case .presented(let destinationAction):
      guard let destinationState = state[keyPath: toPresentationState].wrappedValue else {
        reportMissingDestination(action: action)
        break
      }
      let id = _NavigationID(keyPath: toPresentationState, presented: destinationState)
      if dismissesEphemeralState(destinationState, action: destinationAction) {
        dismissing = id
      }
      let toPresentationAction = self.toPresentationAction
      destinationEffects = destination.reduce(
        into: &state[keyPath: toPresentationState].wrappedValue!, action: destinationAction
      )
      .map { toPresentationAction.embed(.presented($0)) }
      ._presented(as: id)
      ._dismissible(sending: toPresentationAction.embed(.dismiss))
    }

    let parentEffects = parent.reduce(into: &state, action: action)
    if let dismissing, currentID(in: state) == dismissing {
      state[keyPath: toPresentationState].wrappedValue = nil
    }

    let presentedAfter = currentID(in: state)
    var effects = destinationEffects.merge(with: parentEffects)
    if presentedBefore != presentedAfter {
      if let presentedBefore {
        effects = effects.merge(with: .cancel(id: presentedBefore))
      }
    }
    if state[keyPath: toPresentationState].presentedID != presentedAfter {
      state[keyPath: toPresentationState].presentedID = presentedAfter
    }
    return effects
  }

  /// The navigation id of the child presented in `state`, if any.
  @inlinable
  func currentID(in state: Parent.State) -> _NavigationID? {
    state[keyPath: toPresentationState].wrappedValue.map {
      _NavigationID(keyPath: toPresentationState, presented: $0)
    }
  }

  @usableFromInline
  func reportMissingDestination(action: Parent.Action) {
    reportIssue(
      """
      An 'ifLet' at \(location.fileID):\(location.line) received a presentation action when \
      destination state was absent. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      The destination reducer did not run. This can happen when:

      • The parent set destination state to 'nil' before the 'ifLet' ran. Apply 'ifLet' to the \
      parent reducer ('Reduce { … }.ifLet(…)'), so the destination runs first.

      • An effect sent this action after the destination was dismissed. A destination's effects \
      are cancelled when it is dismissed; effects started elsewhere must be cancelled too.

      • The action was sent to the store while nothing was presented.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }
}
