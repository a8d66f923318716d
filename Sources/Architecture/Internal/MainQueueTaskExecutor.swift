import Dispatch

/// A task executor that runs jobs on the main queue, one at a time, in the order they arrive.
///
/// `TestStore` starts effects with this executor as their preference, so an effect's nonisolated
/// code interleaves with the test (on the main actor) in a fixed order instead of racing it on the
/// global pool. Unlike a process-wide serial executor, this affects only the test store's own
/// effects (and the child tasks they create), so tests can run in parallel.
final class MainQueueTaskExecutor: TaskExecutor, @unchecked Sendable {
  static let shared = MainQueueTaskExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    DispatchQueue.main.async {
      job.runSynchronously(on: executor)
    }
  }
}
