import CustomDump

extension Reducer {
  /// Prints each action this reducer receives and a diff of the state change it made, for
  /// debugging.
  ///
  /// ```swift
  /// Store(initialState: Feature.State()) {
  ///   Feature()._printChanges()
  /// }
  /// // received action:
  /// //   Feature.Action.incrementButtonTapped
  /// //   Feature.State(
  /// // −   count: 0
  /// // +   count: 1
  /// //   )
  /// ```
  ///
  /// - Parameter printer: How to print; ``_ReducerPrinter/customDump`` by default. Pass `nil` to
  ///   turn printing off.
  @inlinable
  public func _printChanges(
    _ printer: _ReducerPrinter<State, Action>? = .customDump
  ) -> _PrintChangesReducer<Self> {
    _PrintChangesReducer(base: self, printer: printer)
  }
}

/// How ``Reducer/_printChanges(_:)`` reports a change.
public struct _ReducerPrinter<State, Action> {
  @usableFromInline
  let printChange: (_ receivedAction: Action, _ oldState: State, _ newState: State) -> Void

  /// A printer that calls `printChange` with each action and the states before and after it.
  public init(
    printChange: @escaping (_ receivedAction: Action, _ oldState: State, _ newState: State) -> Void
  ) {
    self.printChange = printChange
  }

  /// Prints the action and a diff of the state, or "(No state changes)".
  public static var customDump: Self {
    .customDump { print($0) }
  }

  /// Writes the action and a diff of the state to `output`, e.g. standard error or a log.
  public static func customDump(_ output: @escaping (String) -> Void) -> Self {
    Self { action, oldState, newState in
      var message = "received action:\n"
      CustomDump.customDump(action, to: &message, indent: 2)
      message += "\n"
      message += diff(oldState, newState).map { "\($0)" } ?? "  (No state changes)"
      output(message)
    }
  }

  /// Prints only the action, on one line.
  public static var actionLabels: Self {
    Self { action, _, _ in
      var label = ""
      CustomDump.customDump(action, to: &label, maxDepth: 1)
      print("received action: \(label)")
    }
  }
}

/// The reducer built by ``Reducer/_printChanges(_:)``.
public struct _PrintChangesReducer<Base: Reducer>: Reducer {
  @usableFromInline
  let base: Base

  @usableFromInline
  let printer: _ReducerPrinter<Base.State, Base.Action>?

  @usableFromInline
  init(base: Base, printer: _ReducerPrinter<Base.State, Base.Action>?) {
    self.base = base
    self.printer = printer
  }

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    guard let printer else {
      return base.reduce(into: &state, action: action)
    }
    let oldState = state
    let effects = base.reduce(into: &state, action: action)
    printer.printChange(action, oldState, state)
    return effects
  }
}
