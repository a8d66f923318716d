import Synchronization

/// How fast an upload's body arrives, against the slowest pace allowed: after `grace`, the
/// body must have brought `minimumRate` bytes for every second since.
///
/// The watch sleeps until the moment the bytes received so far stop being enough, looks again,
/// and says when the body has fallen behind; time is the clock's, so tests drive it.
final class UploadPace: Sendable {
  /// The slowest average the body may arrive at after ``grace``, in bytes per second.
  let minimumRate: Int
  /// How long the body may take to get going.
  let grace: Duration
  private let receivedBytes = Atomic<Int>(0)

  init(minimumRate: Int, grace: Duration) {
    self.minimumRate = max(1, minimumRate)
    self.grace = grace
  }

  /// Records that `total` bytes have arrived in all.
  func received(_ total: Int) {
    receivedBytes.store(total, ordering: .relaxed)
  }

  /// The time from the start by which `bytes` are all the pace asks for.
  private func coveredUntil(_ bytes: Int) -> Duration {
    // At most about thirty years: a duration, not a trap, for any size.
    grace + .seconds(min(Double(bytes) / Double(minimumRate), 1e9))
  }

  /// Returns `true` once the body is behind the pace, or `false` when cancelled (the body was
  /// read, or the upload ended otherwise).
  func waitUntilBehind(on clock: any Clock<Duration>) async -> Bool {
    var elapsed = Duration.zero
    while true {
      let deadline = coveredUntil(receivedBytes.load(ordering: .relaxed))
      if deadline > elapsed {
        guard (try? await clock.sleep(for: deadline - elapsed)) != nil else { return false }
        elapsed = deadline
      }
      // No byte beyond what was enough until now: behind.
      if coveredUntil(receivedBytes.load(ordering: .relaxed)) <= elapsed { return true }
    }
  }
}
