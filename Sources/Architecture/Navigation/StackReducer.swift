import CasePaths
import CustomDump
import IssueReporting

extension Reducer {
  /// Runs each element of a ``StackState`` with a child reducer, for actions sent to that
  /// element, before this reducer; and pushes and pops elements for ``StackAction/push(id:state:)``
  /// and ``StackAction/popFrom(id:)``.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   Reduce { state, action in
  ///     switch action {
  ///     case .path(.element(id: _, action: .detail(.delegate(.saved)))):
  ///       state.savedCount += 1
  ///       return .none
  ///     case .path:
  ///       return .none
  ///     }
  ///   }
  ///   .forEach(\.path, action: \.path) {
  ///     Path()
  ///   }
  /// }
  /// ```
  ///
  /// - An element reduces its own actions first, so the parent sees them after it has, even
  ///   when the parent then pops it.
  /// - `.popFrom(id:)` and `.push(id:state:)` reach the parent first; the stack changes after.
  /// - When elements leave the stack (popped, removed, replaced), their effects are cancelled.
  /// - An element's effects can pop it (and everything above it) with `@Dependency(\.dismiss)`.
  /// - An action for an id that is not in the stack is reported as an issue and changes nothing.
  /// - In tests, a `.push(id:state:)` under an id past the next one the stack would hand out is
  ///   reported as an issue: ids count 0, 1, 2, … in each test, so the test can name them.
  ///
  /// - Parameters:
  ///   - toStackState: The stack state, `\.path`.
  ///   - toStackAction: The case of the stack's actions, `\.path`.
  ///   - destination: The element reducer.
  @inlinable
  public func forEach<DestinationState, DestinationAction, Destination: Reducer>(
    _ toStackState: WritableKeyPath<State, StackState<DestinationState>>,
    action toStackAction: CaseKeyPath<Action, StackAction<DestinationState, DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _StackReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    _StackReducer(
      parent: self,
      destination: destination(),
      toStackState: toStackState,
      toStackAction: _KeyPathCache.shared.casePath(toStackAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// ``forEach(_:action:destination:fileID:filePath:line:column:)`` with a case path
  /// (`/Action.path`), the spelling from before case key paths.
  @available(
    *, deprecated,
    message: "Use a case key path, like 'forEach(\\.path, action: \\.path)'."
  )
  @inlinable
  public func forEach<DestinationState, DestinationAction, Destination: Reducer>(
    _ toStackState: WritableKeyPath<State, StackState<DestinationState>>,
    action toStackAction: AnyCasePath<Action, StackAction<DestinationState, DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _StackReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    _StackReducer(
      parent: self,
      destination: destination(),
      toStackState: toStackState,
      toStackAction: toStackAction,
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer built by ``Reducer/forEach(_:action:destination:fileID:filePath:line:column:)``.
public struct _StackReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  @usableFromInline
  let parent: Parent

  @usableFromInline
  let destination: Destination

  @usableFromInline
  let toStackState: WritableKeyPath<Parent.State, StackState<Destination.State>>

  @usableFromInline
  let toStackAction: AnyCasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>

  @usableFromInline
  let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    destination: Destination,
    toStackState: WritableKeyPath<Parent.State, StackState<Destination.State>>,
    toStackAction: AnyCasePath<
      Parent.Action, StackAction<Destination.State, Destination.Action>
    >,
    location: SourceLocation
  ) {
    self.parent = parent
    self.destination = destination
    self.toStackState = toStackState
    self.toStackAction = toStackAction
    self.location = location
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    // Elements that another reducer removed since this one last ran go away now.
    let idsBefore = state[keyPath: toStackState]._mounted ?? state[keyPath: toStackState]._ids
    var destinationEffects: Effect<Parent.Action> = .none
    let stackAction = toStackAction.extract(from: action)

    switch stackAction {
    case .none, .push:
      break

    case .element(let id, let elementAction):
      guard let index = state[keyPath: toStackState]._ids.firstIndex(of: id) else {
        reportMissingElement(id: id, action: action)
        break
      }
      let toStackAction = self.toStackAction
      destinationEffects = destination.reduce(
        into: &state[keyPath: toStackState]._elements[index], action: elementAction
      )
      .map { toStackAction.embed(.element(id: id, action: $0)) }
      ._presented(as: navigationID(id))
      ._dismissible(sending: toStackAction.embed(.popFrom(id: id)))

    case .popFrom(let id):
      if !state[keyPath: toStackState]._ids.contains(id) {
        reportMissingElement(id: id, action: action)
      }
    }

    let parentEffects = parent.reduce(into: &state, action: action)

    switch stackAction {
    case .popFrom(let id):
      state[keyPath: toStackState].pop(from: id)
    case .push(let id, let element):
      if state[keyPath: toStackState]._ids.contains(id) {
        reportDuplicatePush(id: id, action: action)
      } else {
        checkPushedID(id, action: action)
        state[keyPath: toStackState].push(element, id: id)
        stackElementIDs(skipPast: id)
      }
    default:
      break
    }

    let idsAfter = state[keyPath: toStackState]._ids
    if state[keyPath: toStackState]._mounted != idsAfter {
      state[keyPath: toStackState]._mounted = idsAfter
    }
    guard idsBefore != idsAfter else {
      return destinationEffects.merge(with: parentEffects)
    }
    let cancelEffects = Effect<Parent.Action>.merge(
      idsBefore.filter { !idsAfter.contains($0) }.map { .cancel(id: navigationID($0)) }
    )
    return destinationEffects.merge(with: parentEffects).merge(with: cancelEffects)
  }

  @inlinable
  func navigationID(_ id: StackElementID) -> _NavigationID {
    _NavigationID(keyPath: toStackState, identity: AnyHashable(id))
  }

  @usableFromInline
  func reportMissingElement(id: StackElementID, action: Parent.Action) {
    reportIssue(
      """
      A 'forEach' at \(location.fileID):\(location.line) received an action for a missing \
      stack element. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      No element has the id \(id), so nothing ran. This can happen when:

      • The parent removed the element before the 'forEach' ran. Apply 'forEach' to the parent \
      reducer ('Reduce { … }.forEach(…)'), so the element runs first.

      • An effect sent this action after the element was popped. An element's effects are \
      cancelled when it is popped; effects started elsewhere must be cancelled too.

      • The action was sent to the store after the element was popped.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }

  /// Reports a push, in a test, under an id past the next one that new elements get.
  @usableFromInline
  func checkPushedID(_ id: StackElementID, action: Parent.Action) {
    let next = DependencyValues._current.stackElementID.peek()
    guard id > next, DependencyValues._current.context == .test else { return }
    reportIssue(
      """
      A 'forEach' at \(location.fileID):\(location.line) received a push for an id the stack has \
      not handed out yet. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      The pushed id is \(id), but the next id to be handed out is \(next). Ids past it belong \
      to elements not made yet, so this push took an id that the stack would hand out later. \
      The element was pushed, and later ids skip past it. To fix this, push under \(next), the \
      id the next element gets, or under an id handed out before.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }

  @usableFromInline
  func reportDuplicatePush(id: StackElementID, action: Parent.Action) {
    reportIssue(
      """
      A 'forEach' at \(location.fileID):\(location.line) received a push for an id that is \
      already in the stack. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      The stack already has an element with the id \(id), so nothing was pushed. To fix this, \
      push each element under a new id.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }
}
