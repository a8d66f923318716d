import CasePaths
import CustomDump
import IssueReporting

/// Runs a child reducer on a part of the parent's state, for the child's actions embedded in the
/// parent's.
///
/// ```swift
/// struct App: Reducer {
///   struct State { var settings = Settings.State() }
///   @CasePathable enum Action { case settings(Settings.Action) }
///
///   var body: some ReducerOf<Self> {
///     Scope(state: \.settings, action: \.settings) {
///       Settings()
///     }
///     Reduce { state, action in
///       // the parent sees every action after the child has run
///       .none
///     }
///   }
/// }
/// ```
///
/// Place `Scope` before the parent's own logic, so the child sees its actions before the parent
/// changes its state. The scope can also focus on one case of an enum state,
/// `Scope(state: \.loggedIn, action: \.loggedIn)`; a child action that arrives in another case is
/// reported as an issue.
public struct Scope<ParentState, ParentAction, Child: Reducer>: Reducer {
  @usableFromInline
  enum StatePath {
    case keyPath(WritableKeyPath<ParentState, Child.State>)
    case casePath(AnyCasePath<ParentState, Child.State>, SourceLocation)
  }

  @usableFromInline
  let toChildState: StatePath

  @usableFromInline
  let toChildAction: AnyCasePath<ParentAction, Child.Action>

  @usableFromInline
  let child: Child

  /// Runs `child` on the state at a key path, for actions of a case.
  ///
  /// The case key path is converted to a case path once per distinct key path and the result
  /// kept by key path, so a `body` that runs for every action does not convert `\.child` again.
  /// The key paths themselves are used as given each time: a call site may pass a different key
  /// path on every evaluation (`flag ? \.a : \.b`, a property of the reducer) and each one
  /// routes its own case.
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.toChildState = .keyPath(toChildState)
    self.toChildAction = _KeyPathCache.shared.casePath(toChildAction)
    self.child = child()
  }

  /// Runs `child` on one case of an enum state, for actions of a case.
  ///
  /// Both case key paths are converted as described for
  /// ``init(state:action:child:)``.
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: CaseKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.toChildState = .casePath(
      _KeyPathCache.shared.casePath(toChildState),
      SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    self.toChildAction = _KeyPathCache.shared.casePath(toChildAction)
    self.child = child()
  }

  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    let effect: Effect<Child.Action>
    switch toChildState {
    case .keyPath(let keyPath):
      effect = child.reduce(into: &state[keyPath: keyPath], action: childAction)
    case .casePath(let casePath, let location):
      guard var childState = casePath.extract(from: state) else {
        reportWrongCase(action: action, location: location)
        return .none
      }
      effect = child.reduce(into: &childState, action: childAction)
      state = casePath.embed(childState)
    }
    let toChildAction = self.toChildAction
    return effect.map { toChildAction.embed($0) }
  }

  @usableFromInline
  func reportWrongCase(action: ParentAction, location: SourceLocation) {
    reportIssue(
      """
      A 'Scope' at \(location.fileID):\(location.line) received a child action when the parent \
      state was in another case. …

        Action:
      \(String(customDumping: action).indentedForIssue)

      The child reducer did not run. This usually means an effect sent the action after the \
      state moved to another case: cancel the child's effects when leaving the case, or use \
      'ifCaseLet', which does that for you.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }
}
