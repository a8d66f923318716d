import Observation

/// Lets `withObservationTracking` see a store's state being replaced by another value.
///
/// Properties of ``ObservableState`` tell their own observers when they change; what they cannot
/// see is the whole state being swapped for a different value (`state = State()` in a reducer).
/// A root store and the stores scoped from it share one of these, and the root tells it when the
/// state's identity changed.
final class StoreObservation: Observable, Sendable {
  private let registrar = ObservationRegistrar()

  /// A stand-in property that reading `store.state` registers.
  var state: Void {
    registrar.access(self, keyPath: \.state)
  }

  /// Registers a read of the store's state with the observation tracking in progress, if any.
  func access() {
    _ = state
  }

  /// Tells observers of the store's state that it was replaced.
  func stateDidChange() {
    registrar.withMutation(of: self, keyPath: \.state) {}
  }
}
