import Foundation

/// What `throttle(id:for:scheduler:latest:)` remembers between the effects it throttles: for each
/// id, when it last let an action through and the action it is holding back.
///
/// Each store has its own (in its effect registry), as cancellation ids are the store's own; an
/// effect run outside a store uses a process-wide one.
final class ThrottleMemory: @unchecked Sendable {
  // `@unchecked`: `entries` is guarded by `lock`. Times and actions are stored as `Any` because
  // each id may be used with its own scheduler and action type; they are only read back with the
  // types they were stored with.
  private struct Entry {
    var lastSent: Any
    var heldBack: Any?
  }

  /// What to do with an action that reached the throttle.
  enum Decision<Action, Stride> {
    /// Send this action now.
    case sendNow(Action)
    /// Send this action after the given stride, unless a newer effect cancels this one first.
    case sendLater(Action, after: Stride)
  }

  static let outsideStores = ThrottleMemory()

  private let lock = NSLock()
  private var entries: [_CancelID: Entry] = [:]

  /// The memory of the store running the current effect.
  static var current: ThrottleMemory {
    EffectContext.canceller?.throttles ?? outsideStores
  }

  /// Decides, at the scheduler's time `now`, what happens to `action`, which reached the
  /// throttle for `id`.
  ///
  /// The first action under an id goes through at once. After that, an action within `interval`
  /// of the last one sent waits until the interval has passed; what is sent then is the newest
  /// action (`latest`) or the oldest one held back since the last send.
  func decide<Action, Time: Strideable>(
    _ action: Action,
    id: _CancelID,
    now: Time,
    interval: Time.Stride,
    latest: Bool
  ) -> Decision<Action, Time.Stride> {
    lock.withLock {
      guard let lastSent = entries[id]?.lastSent as? Time else {
        entries[id] = Entry(lastSent: now, heldBack: nil)
        return .sendNow(action)
      }
      let chosen = latest ? action : (entries[id]?.heldBack as? Action ?? action)
      guard lastSent.distance(to: now) < interval else {
        entries[id] = Entry(lastSent: now, heldBack: nil)
        return .sendNow(chosen)
      }
      entries[id]?.heldBack = chosen
      return .sendLater(chosen, after: now.distance(to: lastSent.advanced(by: interval)))
    }
  }

  /// Records that a held-back action for `id` was sent at `now`.
  func didSend<Time: Strideable>(id: _CancelID, at now: Time) {
    lock.withLock {
      entries[id] = Entry(lastSent: now, heldBack: nil)
    }
  }
}
