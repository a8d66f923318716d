import Observation

/// A state type made observable by the ``ObservableState()`` macro.
///
/// Don't conform to it yourself: apply the macro.
public protocol ObservableState: Observable {
  /// The identity of this state value, shared by its copies, to tell a child mutated in place
  /// from a child replaced by another value.
  var _$id: ObservableStateID { get }

  /// Called before the value is modified in place through its parent: gives it a new identity.
  mutating func _$willModify()
}
