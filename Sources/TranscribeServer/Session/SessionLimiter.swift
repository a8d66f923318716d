import Synchronization

/// Counts the recognition sessions that run at once and turns new ones away past the limit.
///
/// Nothing waits in a queue: a session either gets a ``Permit`` at once or is rejected, so a
/// flood of clients can never build up an unbounded backlog.
///
/// ```swift
/// guard let permit = limiter.acquire() else { return .serviceUnavailable }
/// defer { permit.release() }
/// ```
public final class SessionLimiter: Sendable {
  /// The most sessions that may run at once.
  public let limit: Int
  private let active = Mutex(0)

  /// Creates a limiter for `limit` sessions (at least one).
  public init(limit: Int) {
    self.limit = max(1, limit)
  }

  /// The sessions running now.
  public var activeCount: Int {
    active.withLock { $0 }
  }

  /// Whether another session would be accepted now.
  public var hasCapacity: Bool {
    activeCount < limit
  }

  /// Takes a place for a session, or `nil` when all are taken.
  public func acquire() -> Permit? {
    let acquired = active.withLock { active in
      guard active < limit else { return false }
      active += 1
      return true
    }
    return acquired ? Permit(limiter: self) : nil
  }

  fileprivate func release() {
    active.withLock { $0 -= 1 }
  }

  /// A session's place; give it back with ``release()`` (or let it go: it releases itself).
  public final class Permit: Sendable {
    private let limiter: SessionLimiter
    private let isReleased = Mutex(false)

    fileprivate init(limiter: SessionLimiter) {
      self.limiter = limiter
    }

    deinit {
      release()
    }

    /// Gives the place back; later calls do nothing.
    public func release() {
      let wasReleased = isReleased.withLock { isReleased in
        defer { isReleased = true }
        return isReleased
      }
      if !wasReleased { limiter.release() }
    }
  }
}
