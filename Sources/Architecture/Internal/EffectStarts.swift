import ConcurrencyExtras

/// Counts the effects a store has started whose tasks have not begun running yet, so that a
/// ``TestStore`` can wait until every one has: `send` returns only once the effects it started
/// are running.
final class EffectStarts: Sendable {
  private struct Counts {
    var pending = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let counts = LockIsolated(Counts())

  /// Notes an effect whose task is about to be created.
  func willStart() {
    counts.withValue { $0.pending += 1 }
  }

  /// Notes that an effect's task has begun running; resumes the waiters once none is pending.
  func didStart() {
    let waiters = counts.withValue { counts -> [CheckedContinuation<Void, Never>] in
      counts.pending -= 1
      guard counts.pending == 0 else { return [] }
      defer { counts.waiters.removeAll() }
      return counts.waiters
    }
    for waiter in waiters {
      waiter.resume()
    }
  }

  /// Returns once every effect noted so far has begun running.
  func waitUntilAllStarted() async {
    guard counts.value.pending > 0 else { return }
    await withCheckedContinuation { continuation in
      let isReady = counts.withValue { counts in
        guard counts.pending > 0 else { return true }
        counts.waiters.append(continuation)
        return false
      }
      if isReady { continuation.resume() }
    }
  }
}
