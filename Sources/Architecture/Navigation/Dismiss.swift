import ConcurrencyExtras
import Dependencies
import IssueReporting

/// Lets a presented child feature dismiss itself: `@Dependency(\.dismiss) var dismiss`, then
/// `await dismiss()` in an effect.
///
/// ```swift
/// @Reducer
/// struct Compose {
///   @Dependency(\.dismiss) var dismiss
///   // …
///       case .sendButtonTapped:
///         return .run { _ in await self.dismiss() }
/// }
/// ```
///
/// The closest presentation that runs the effect gets the dismissal: a child integrated with
/// ``Reducer/ifLet(_:action:destination:fileID:filePath:line:column:)`` receives
/// `PresentationAction.dismiss`, and a stack element integrated with
/// ``Reducer/forEach(_:action:destination:fileID:filePath:line:column:)`` is popped with
/// `StackAction.popFrom(id:)`. Either way the child's effects are cancelled, the calling effect
/// included, so code after `await dismiss()` sees `Task.isCancelled`.
///
/// A feature that no parent presents, run in a ``TestStore``, dismisses the test store itself, as
/// in TCA: the store's effects are cancelled and sending it another action is reported as an
/// issue (see ``TestStore/isDismissed``). In a ``Store``, calling it from a feature that is not
/// presented is reported as an issue and does nothing.
/// Tests can override it: `$0.dismiss = DismissEffect { dismissed.setValue(true) }`.
public struct DismissEffect: Sendable {
  private let dismiss: (@MainActor @Sendable () -> Void)?

  /// A dismiss effect that runs `dismiss` instead of dismissing the closest presentation, for
  /// tests and previews.
  public init(_ dismiss: @escaping @MainActor @Sendable () -> Void) {
    self.dismiss = dismiss
  }

  init() {
    self.dismiss = nil
  }

  /// Dismisses the closest presentation of the feature whose effect calls it.
  public func callAsFunction(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    if let dismiss {
      await dismiss()
      return
    }
    guard let presentation = PresentationContext.dismiss else {
      reportIssue(
        """
        A feature requested dismissal with '@Dependency(\\.dismiss)', but it is not presented.

        Dismissal reaches a child that a parent integrates with 'ifLet(\\.$destination, \
        action: \\.destination)' or 'forEach(\\.path, action: \\.path)', from the child's own \
        effects. To fix this, present the feature that calls 'dismiss', or let its parent \
        change state to dismiss it.
        """,
        fileID: fileID, filePath: filePath, line: line, column: column)
      return
    }
    await presentation()
  }
}

extension DependencyValues {
  /// Dismisses the presented feature whose effect calls it; see ``DismissEffect``.
  public var dismiss: DismissEffect {
    get { self[DismissKey.self] }
    set { self[DismissKey.self] = newValue }
  }
}

private enum DismissKey: DependencyKey {
  static let liveValue = DismissEffect()
  static let testValue = DismissEffect()
}

/// What the effects of a presented child can reach of their presentation.
enum PresentationContext {
  /// Sends the closest presentation's dismissal action (`.dismiss`, `.popFrom(id:)`) to the store.
  @TaskLocal static var dismiss: (@Sendable () async -> Void)?
}

extension Effect {
  /// Lets this child effect's asynchronous work dismiss the child: `await dismiss()` inside it
  /// sends `action`.
  @usableFromInline
  func _dismissible(sending action: Action) -> Self {
    // Actions are read only on the store's actor, by the store (see `Effect`'s `Sendable`).
    let action = UncheckedSendable(action)
    switch operation {
    case .none, .send, .cancel:
      return self
    case .run(let priority, let operation):
      return Self(
        operation: .run(priority) { send in
          await PresentationContext.$dismiss.withValue({ await send(action.value) }) {
            await operation(send)
          }
        })
    case .merge(let effects):
      return Self(operation: .merge(effects.map { $0._dismissible(sending: action.value) }))
    case .concatenate(let effects):
      return Self(operation: .concatenate(effects.map { $0._dismissible(sending: action.value) }))
    case .cancellable(let id, let cancelInFlight, let effect):
      return Self(
        operation: .cancellable(
          id, cancelInFlight: cancelInFlight, effect._dismissible(sending: action.value)))
    }
  }
}
