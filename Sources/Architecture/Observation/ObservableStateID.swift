/// The identity of an ``ObservableState`` value: copies share it, a newly created value has a
/// new one.
public struct ObservableStateID: Hashable, Sendable {
  private final class Location: Sendable {}

  private let location: Location
  private var tags: [Int] = []
  /// The identities of a collection's elements, for the identity of the collection.
  private var elements: [ObservableStateID] = []

  /// The one location of every collection's identity: collections differ by their elements.
  private static let collection = Location()

  /// A new identity, different from every other.
  public init() {
    self.location = Location()
  }

  private init(elements: [ObservableStateID]) {
    self.location = Self.collection
    self.elements = elements
  }

  /// The identity of a collection of observable states: the same as long as it holds the same
  /// elements (by identity) in the same order, so changing an element in place is not a change
  /// of the collection.
  public static func _$collection<C: Collection>(_ collection: C) -> Self
  where C.Element: ObservableState {
    Self(elements: collection.map(\._$id))
  }

  /// This identity, further distinguished by an enum case's index.
  public func _$tag(_ tag: Int) -> Self {
    var id = self
    id.tags.append(tag)
    return id
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.location === rhs.location && lhs.tags == rhs.tags && lhs.elements == rhs.elements
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(location))
    hasher.combine(tags)
    hasher.combine(elements)
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

/// The identity of a collection of observable states (an array, an `IdentifiedArray`, a
/// ``StackState``): see ``ObservableStateID/_$collection(_:)``.
@inlinable
public func _$observableStateIdentity<C: Collection>(
  of value: C
) -> ObservableStateID? where C.Element: ObservableState {
  ._$collection(value)
}

/// Whether assigning `newValue` over `oldValue` changes nothing an observer could see: equal
/// values, for `Equatable` properties that hold no observable state. Observable states (and
/// collections of them) are compared by identity instead, so this is `false` for them.
@inlinable
public func _$isUnchangedValue<Value>(_ oldValue: Value, _ newValue: Value) -> Bool {
  false
}

@inlinable
public func _$isUnchangedValue<Value: Equatable>(_ oldValue: Value, _ newValue: Value) -> Bool {
  oldValue == newValue
}

@inlinable
public func _$isUnchangedValue<Value: ObservableState & Equatable>(
  _ oldValue: Value, _ newValue: Value
) -> Bool {
  false
}

@inlinable
public func _$isUnchangedValue<Value: ObservableState & Equatable>(
  _ oldValue: Value?, _ newValue: Value?
) -> Bool {
  false
}

@inlinable
public func _$isUnchangedValue<C: Collection & Equatable>(_ oldValue: C, _ newValue: C) -> Bool
where C.Element: ObservableState {
  false
}
