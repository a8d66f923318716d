import Observation

/// The observation registrar that ``ObservableState()`` adds to a struct. Its copies share
/// observers and identity.
///
/// It never affects comparison, hashing or coding of the state: every two registrars are equal.
public struct ObservationStateRegistrar: Sendable {
  /// The identity of the state that holds this registrar.
  public private(set) var id = ObservableStateID()

  @usableFromInline
  let registrar = ObservationRegistrar()

  /// Creates a registrar with a new identity.
  public init() {}

  /// Registers a read of `keyPath` with the observation tracking in progress, if any.
  @inlinable
  public func access<Subject: Observable, Member>(
    _ subject: Subject, keyPath: KeyPath<Subject, Member>
  ) {
    registrar.access(subject, keyPath: keyPath)
  }

  /// Tells observers of `keyPath` that it changed, unless its value is still the same observable
  /// state (identities `old` and `new` are equal).
  @inlinable
  public func didChange<Subject: Observable, Member>(
    _ subject: Subject,
    keyPath: KeyPath<Subject, Member>,
    from old: ObservableStateID?,
    to new: ObservableStateID?
  ) {
    if let old, let new, old == new { return }
    registrar.withMutation(of: subject, keyPath: keyPath) {}
  }

  /// Gives the state a new identity before it is modified in place through its parent, so
  /// that copies made before the modification no longer count as the same value.
  public mutating func _$willModify() {
    id = ObservableStateID()
  }
}

extension ObservationStateRegistrar: Equatable, Hashable, Codable {
  public static func == (lhs: Self, rhs: Self) -> Bool { true }
  public func hash(into hasher: inout Hasher) {}
  public init(from decoder: any Decoder) throws { self.init() }
  public func encode(to encoder: any Encoder) throws {}
}
