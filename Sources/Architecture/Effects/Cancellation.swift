extension Effect {
  /// Makes this effect cancellable with ``cancel(id:)`` under `id`.
  ///
  /// ```swift
  /// enum CancelID { case search }
  ///
  /// case .queryChanged(let query):
  ///   return .run { send in
  ///     try await clock.sleep(for: .milliseconds(300))
  ///     await send(.results(try await client.search(query)))
  ///   }
  ///   .cancellable(id: CancelID.search, cancelInFlight: true)
  /// ```
  ///
  /// Ids belong to the store that runs the effect: cancelling `CancelID.search` in one store never
  /// touches another store's effects.
  ///
  /// - Parameters:
  ///   - id: Any hashable value; an enum case per kind of effect is the usual choice.
  ///   - cancelInFlight: Whether to cancel the effects already running under `id` before this one
  ///     starts (debouncing, restarting a stream).
  @inlinable
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    switch self.operation {
    case .none:
      return cancelInFlight ? .cancel(id: id) : .none
    default:
      return Self(operation: .cancellable(_CancelID(id), cancelInFlight: cancelInFlight, self))
    }
  }

  /// An effect that cancels every running effect that was made cancellable under `id` in this
  /// store.
  ///
  /// ```swift
  /// case .stopButtonTapped:
  ///   state.isRecording = false
  ///   return .cancel(id: CancelID.recording)
  /// ```
  @inlinable
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(operation: .cancel(_CancelID(id)))
  }
}

/// A cancellation id, compared by value and by type, so `1` and `"1"` are different ids.
public struct _CancelID: Hashable, @unchecked Sendable {
  // `AnyHashable` of a `Sendable` value: safe to share.
  @usableFromInline
  let id: AnyHashable
  @usableFromInline
  let type: ObjectIdentifier

  @usableFromInline
  init<ID: Hashable & Sendable>(_ id: ID) {
    self.id = AnyHashable(id)
    self.type = ObjectIdentifier(ID.self)
  }
}
