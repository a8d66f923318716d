import Architecture
import Synchronization

/// Where a server's sessions run: the process's ``ThreadExecutor/shared`` executors (one per
/// core), taken in turn, so sessions admitted one after another reduce in parallel, off the main
/// actor and off Swift's cooperative pool, where their connections' reads and writes wait.
final class SessionExecutors: Sendable {
  private let turn = Mutex(0)

  /// The executor for the next session.
  func next() -> ThreadExecutor {
    let shared = ThreadExecutor.shared
    return turn.withLock { turn in
      defer { turn = (turn + 1) % shared.count }
      return shared[turn]
    }
  }
}
