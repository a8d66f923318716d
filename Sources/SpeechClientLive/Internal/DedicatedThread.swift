import Foundation

/// Runs blocking work on a new thread of its own, never on Swift's cooperative pool.
enum DedicatedThread {
  /// The stack size of our threads: pocketsphinx and libpulse are used to a process's main
  /// stack, so give them as much rather than a secondary thread's smaller default.
  static let stackSize = 8 << 20

  /// Starts `body` on a new thread.
  static func start(name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.stackSize = stackSize
    thread.start()
  }

  /// Runs `body` on a new thread and returns its result.
  static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      start(name: name) { continuation.resume(returning: body()) }
    }
  }
}
