/// The identity of an ``ObservableState`` value: copies share it, a newly created value has a
/// new one.
public struct ObservableStateID: Hashable, Sendable {
  private final class Location: Sendable {}

  private let location: Location
  private var tags: [Int] = []

  /// A new identity, different from every other.
  public init() {
    self.location = Location()
  }

  /// This identity, further distinguished by an enum case's index.
  public func _$tag(_ tag: Int) -> Self {
    var id = self
    id.tags.append(tag)
    return id
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.location === rhs.location && lhs.tags == rhs.tags
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(location))
    hasher.combine(tags)
  }
}

/// The identity of a value that a tracked property holds, or `nil` when it has none (a plain
/// value, whose every write counts as a change).
@inlinable
public func _$observableStateIdentity<Value>(of value: Value) -> ObservableStateID? {
  nil
}

/// The identity of an observable state value that a tracked property holds.
@inlinable
public func _$observableStateIdentity<Value: ObservableState>(
  of value: Value
) -> ObservableStateID? {
  value._$id
}

/// The identity of an optional observable state value that a tracked property holds.
@inlinable
public func _$observableStateIdentity<Value: ObservableState>(
  of value: Value?
) -> ObservableStateID? {
  value?._$id
}

/// The identity of an enum case's payload: its own when it is observable state, otherwise a
/// new one.
@inlinable
public func _$observableStateID<Value>(of value: Value) -> ObservableStateID {
  (value as? any ObservableState)?._$id ?? ObservableStateID()
}

/// Forwards ``ObservableState/_$willModify()`` to a value that is not observable state: does
/// nothing.
@inlinable
public func _$willModify<Value>(_ value: inout Value) {}

/// Forwards ``ObservableState/_$willModify()`` to an enum case's observable payload.
@inlinable
public func _$willModify<Value: ObservableState>(_ value: inout Value) {
  value._$willModify()
}

/// Forwards ``ObservableState/_$willModify()`` to an optional observable value.
@inlinable
public func _$willModify<Value: ObservableState>(_ value: inout Value?) {
  value?._$willModify()
}
