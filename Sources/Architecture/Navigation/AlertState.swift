import Foundation

/// Text for an alert or a confirmation dialog, as data: what a TCA feature puts in
/// ``AlertState`` so that tests can compare it. It holds a plain string; on Linux there is no
/// styling to keep.
public struct TextState: Equatable, Hashable, Sendable {
  /// The text.
  public var string: String

  /// Text showing `string`.
  public init(_ string: some StringProtocol) {
    self.string = String(string)
  }

  /// Text showing `string` as it is.
  public init(verbatim string: String) {
    self.string = string
  }
}

extension TextState: ExpressibleByStringInterpolation {
  public init(stringLiteral value: String) {
    self.init(verbatim: value)
  }
}

extension TextState: CustomStringConvertible {
  public var description: String { string }
}

/// What a button of an ``AlertState`` or ``ConfirmationDialogState`` means to the person using it.
public enum ButtonStateRole: Equatable, Hashable, Sendable {
  /// The button cancels.
  case cancel
  /// The button destroys data.
  case destructive
}

/// What tapping a button sends.
public enum ButtonStateAction<Action> {
  /// Sends `action`.
  case send(Action?)
}

extension ButtonStateAction: Equatable where Action: Equatable {}
extension ButtonStateAction: Hashable where Action: Hashable {}
extension ButtonStateAction: Sendable where Action: Sendable {}

/// A button of an ``AlertState`` or ``ConfirmationDialogState``: a label, a role and the action it
/// sends.
public struct ButtonState<Action>: Identifiable {
  /// The button's identity, left out of comparisons.
  public let id = UUID()
  /// What tapping the button sends.
  public var action: ButtonStateAction<Action>
  /// What the button means.
  public var role: ButtonStateRole?
  /// The button's text.
  public var label: TextState

  /// A button that sends `action`, or nothing.
  public init(
    role: ButtonStateRole? = nil,
    action: ButtonStateAction<Action> = .send(nil),
    label: () -> TextState
  ) {
    self.role = role
    self.action = action
    self.label = label()
  }

  /// A button that sends `action`.
  public init(role: ButtonStateRole? = nil, action: Action, label: () -> TextState) {
    self.init(role: role, action: .send(action), label: label)
  }
}

extension ButtonState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.action == rhs.action && lhs.role == rhs.role && lhs.label == rhs.label
  }
}

extension ButtonState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(action)
    hasher.combine(role)
    hasher.combine(label)
  }
}

extension ButtonState: Sendable where Action: Sendable {}

/// Builds the buttons of an alert or a dialog.
@resultBuilder
public enum ButtonStateBuilder<Action> {
  public static func buildBlock(_ buttons: [ButtonState<Action>]...) -> [ButtonState<Action>] {
    buttons.flatMap { $0 }
  }
  public static func buildExpression(_ button: ButtonState<Action>) -> [ButtonState<Action>] {
    [button]
  }
  public static func buildOptional(_ buttons: [ButtonState<Action>]?) -> [ButtonState<Action>] {
    buttons ?? []
  }
  public static func buildEither(first buttons: [ButtonState<Action>]) -> [ButtonState<Action>] {
    buttons
  }
  public static func buildEither(second buttons: [ButtonState<Action>]) -> [ButtonState<Action>] {
    buttons
  }
  public static func buildArray(_ buttons: [[ButtonState<Action>]]) -> [ButtonState<Action>] {
    buttons.flatMap { $0 }
  }
}

/// An alert as data: a title, a message and buttons, presented with
/// `@Presents var alert: AlertState<Action.Alert>?` and `.ifLet(\.$alert, action: \.alert)`.
///
/// ```swift
/// state.alert = AlertState {
///   TextState("Delete this recording?")
/// } actions: {
///   ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
/// }
/// ```
///
/// It has no logic: any of its actions dismisses it after the parent has seen the action.
/// Nothing shows it on Linux; a terminal UI or a server renders it from its fields.
public struct AlertState<Action>: Identifiable, _EphemeralState {
  /// The alert's identity, left out of comparisons.
  public let id = UUID()
  /// The title.
  public var title: TextState
  /// The message under the title, if any.
  public var message: TextState?
  /// The buttons; an alert without buttons has an implicit "OK".
  public var buttons: [ButtonState<Action>]

  /// An alert with a title, buttons and a message.
  public init(
    title: () -> TextState,
    @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.title = title()
    self.buttons = actions()
    self.message = message?()
  }
}

extension AlertState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.title == rhs.title && lhs.message == rhs.message && lhs.buttons == rhs.buttons
  }
}

extension AlertState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}

extension AlertState: Sendable where Action: Sendable {}

/// Whether a confirmation dialog shows its title.
public enum ConfirmationDialogStateTitleVisibility: Equatable, Hashable, Sendable {
  case automatic, hidden, visible
}

/// A confirmation dialog as data, like ``AlertState``: any of its actions dismisses it after the
/// parent has seen the action.
public struct ConfirmationDialogState<Action>: Identifiable, _EphemeralState {
  /// The dialog's identity, left out of comparisons.
  public let id = UUID()
  /// Whether the title shows.
  public var titleVisibility: ConfirmationDialogStateTitleVisibility
  /// The title.
  public var title: TextState
  /// The message under the title, if any.
  public var message: TextState?
  /// The buttons.
  public var buttons: [ButtonState<Action>]

  /// A dialog with a title, buttons and a message.
  public init(
    titleVisibility: ConfirmationDialogStateTitleVisibility = .automatic,
    title: () -> TextState,
    @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.titleVisibility = titleVisibility
    self.title = title()
    self.buttons = actions()
    self.message = message?()
  }
}

extension ConfirmationDialogState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.titleVisibility == rhs.titleVisibility && lhs.title == rhs.title
      && lhs.message == rhs.message && lhs.buttons == rhs.buttons
  }
}

extension ConfirmationDialogState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(titleVisibility)
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}

extension ConfirmationDialogState: Sendable where Action: Sendable {}
