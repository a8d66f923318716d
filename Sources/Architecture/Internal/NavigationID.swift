/// Identifies one presentation of a child feature (an `ifLet` child, an `ifCaseLet` case, a
/// `forEach` element), to cancel its effects when it goes away and to keep its cancellation ids
/// apart from its siblings'.
public struct _NavigationID: Hashable, @unchecked Sendable {
  // Key paths and the `AnyHashable` of `Hashable & Sendable` ids: safe to share.
  @usableFromInline
  let keyPath: AnyKeyPath

  @usableFromInline
  let identity: AnyHashable?

  @usableFromInline
  init(keyPath: AnyKeyPath, identity: AnyHashable?) {
    self.keyPath = keyPath
    self.identity = identity
  }

  /// The navigation id of child state at `keyPath`: its `id` when it is `Identifiable`, so that
  /// replacing a child with a different one also counts as the child going away.
  @usableFromInline
  init(keyPath: AnyKeyPath, state: Any) {
    self.init(keyPath: keyPath, identity: identifiableID(of: state))
  }
}

@usableFromInline
func identifiableID(of state: Any) -> AnyHashable? {
  func open<T: Identifiable>(_ value: T) -> AnyHashable { AnyHashable(value.id) }
  guard let identifiable = state as? any Identifiable else { return nil }
  return open(identifiable)
}

extension _CancelID {
  /// This id without the children it was used in.
  var unscoped: Self {
    var id = self
    id.path = []
    return id
  }

  /// Whether this is `other`'s id, used in `other`'s feature or in one of its descendants.
  func isDescendant(of other: Self) -> Bool {
    // Paths list the innermost child first, so a descendant's path ends with its ancestor's.
    path.count >= other.path.count && path.suffix(other.path.count).elementsEqual(other.path)
  }

  /// This id, scoped under a child's navigation id.
  @usableFromInline
  func scoped(to navigationID: _NavigationID) -> Self {
    var id = self
    id.path.append(navigationID)
    return id
  }
}

extension Effect {
  /// Scopes every cancellation id in this effect to a child, so that identical ids used by
  /// siblings (two rows' `CancelID.timer`) don't cancel each other's effects.
  @usableFromInline
  func _scopeCancelIDs(to navigationID: _NavigationID) -> Self {
    switch operation {
    case .none, .send:
      return self
    case .run(let priority, let operation):
      // So that `Task.cancel(id:)` inside the child's effect names the child's ids.
      return Self(
        operation: .run(priority) { send in
          await EffectContext.$navigationPath.withValue(
            [navigationID] + EffectContext.navigationPath
          ) {
            await operation(send)
          }
        })
    case .merge(let effects):
      return Self(operation: .merge(effects.map { $0._scopeCancelIDs(to: navigationID) }))
    case .concatenate(let effects):
      return Self(operation: .concatenate(effects.map { $0._scopeCancelIDs(to: navigationID) }))
    case .cancellable(let id, let cancelInFlight, let effect):
      return Self(
        operation: .cancellable(
          id.scoped(to: navigationID), cancelInFlight: cancelInFlight,
          effect._scopeCancelIDs(to: navigationID)))
    case .cancel(let id):
      return Self(operation: .cancel(id.scoped(to: navigationID)))
    }
  }

  /// Scopes this child effect's cancellation ids and makes the whole effect cancellable under
  /// the child's navigation id.
  @usableFromInline
  func _presented(as navigationID: _NavigationID) -> Self {
    switch operation {
    case .none:
      return .none
    default:
      return Self(
        operation: .cancellable(
          _CancelID(navigationID), cancelInFlight: false, _scopeCancelIDs(to: navigationID)))
    }
  }
}

/// What tells one presented child from another: the case of an enum destination (so showing an
/// alert where a sheet was counts as a new presentation) and the `id` of an `Identifiable`
/// child or case payload.
struct PresentationIdentity: Hashable, @unchecked Sendable {
  // The `AnyHashable` of a `Hashable & Sendable` id: safe to share.
  let caseName: String?
  let id: AnyHashable?
}

extension _NavigationID {
  /// The navigation id of a presented child at `keyPath`.
  @usableFromInline
  init(keyPath: AnyKeyPath, presented state: Any) {
    self.init(keyPath: keyPath, identity: AnyHashable(presentationIdentity(of: state)))
  }
}

private func presentationIdentity(of state: Any) -> PresentationIdentity {
  // Only enums are reflected on: reflecting is slow, and most children are structs.
  guard isEnum(type(of: state)) else {
    return PresentationIdentity(caseName: nil, id: identifiableID(of: state))
  }
  let mirror = Mirror(reflecting: state)
  guard mirror.displayStyle == .enum else {
    return PresentationIdentity(caseName: nil, id: identifiableID(of: state))
  }
  guard let payload = mirror.children.first else {
    return PresentationIdentity(caseName: String(describing: state), id: identifiableID(of: state))
  }
  return PresentationIdentity(
    caseName: payload.label, id: identifiableID(of: payload.value) ?? identifiableID(of: state))
}

/// Whether `type` is an enum (`Optional` included), read from its runtime metadata's kind
/// without reflecting on a value.
@usableFromInline
func isEnum(_ type: Any.Type) -> Bool {
  // The first word of a type's metadata is its kind: 0x201 for enums, 0x202 for `Optional`.
  let kind = unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
  return kind == 0x201 || kind == 0x202
}
