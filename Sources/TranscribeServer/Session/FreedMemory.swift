import CMalloc
import Foundation
import Synchronization

/// Gives the memory a finished session's decoding freed back to the system.
///
/// glibc keeps freed memory in its arenas (one per thread that allocates, and decoding runs on
/// many) for reuse, and pieces of ever-new lengths leave it fragmented: a server fed thousands
/// of corrupt uploads of odd lengths grew by about 100 MiB for every 500 new ones, most of it
/// freed memory still held (`malloc_trim` gave back 70 of it at once). After a session ends
/// the arenas are trimmed, at most once a second, so a busy server pays for it rarely.
enum FreedMemory {
  private static let lastTrim = Mutex<ContinuousClock.Instant?>(nil)
  /// The shortest time between two trims.
  static let interval = Duration.seconds(1)

  /// Trims glibc's arenas unless that was done less than ``interval`` ago; returns whether it
  /// trimmed.
  @discardableResult
  static func release(now: ContinuousClock.Instant = .now) -> Bool {
    let isDue = lastTrim.withLock { last in
      if let last, now - last < interval { return false }
      last = now
      return true
    }
    guard isDue else { return false }
    malloc_trim(0)
    return true
  }
}
