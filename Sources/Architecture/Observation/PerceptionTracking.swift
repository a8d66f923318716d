import Observation

/// Tracks the observable state that `apply` reads, and calls `onChange` once when any of it is
/// about to change: TCA's spelling (from Perception) of Observation's `withObservationTracking`,
/// so code that uses it ports unchanged.
///
/// ```swift
/// withPerceptionTracking {
///   _ = store.count
/// } onChange: {
///   print("count will change")
/// }
/// ```
public func withPerceptionTracking<T>(
  _ apply: () -> T,
  onChange: @autoclosure () -> @Sendable () -> Void
) -> T {
  withObservationTracking(apply, onChange: onChange())
}
