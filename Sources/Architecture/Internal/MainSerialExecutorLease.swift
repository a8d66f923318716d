import ConcurrencyExtras

/// Serializes the process's global executor onto the main queue while at least one holder needs
/// it, restoring the previous setting when the last one lets go.
///
/// ConcurrencyExtras' `uncheckedUseMainSerialExecutor` is process-wide; counting holders keeps
/// one test store from switching it off under another that still needs it.
enum MainSerialExecutorLease {
  private struct Holders {
    var count = 0
    var previous = false
  }

  private static let holders = LockIsolated(Holders())

  static func acquire() {
    holders.withValue { holders in
      if holders.count == 0 {
        holders.previous = uncheckedUseMainSerialExecutor
        uncheckedUseMainSerialExecutor = true
      }
      holders.count += 1
    }
  }

  static func release() {
    holders.withValue { holders in
      holders.count -= 1
      if holders.count == 0 {
        uncheckedUseMainSerialExecutor = holders.previous
      }
    }
  }
}
