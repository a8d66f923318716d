import ConcurrencyExtras

/// The tasks that one `send` started, plus the tasks of the effects started by actions those
/// effects sent back (their descendants), so that the store task returned by `send` covers an
/// effect's whole lifetime, as in TCA: cancelling it cancels the descendants, and waiting for it
/// waits for them.
final class EffectGroup: Sendable {
  private struct Members {
    var tasks: [Task<Void, Never>] = []
    /// How many of `tasks`, at the front, are the send's own effects.
    var ownCount = 0
    var isCancelled = false
    var waiter: Task<Void, Never>?
  }

  private let members = LockIsolated(Members())

  /// Adds a descendant's task; it is cancelled at once if the group already was.
  func append(_ task: Task<Void, Never>) {
    let cancel = members.withValue {
      $0.tasks.append(task)
      return $0.isCancelled
    }
    if cancel { task.cancel() }
  }

  /// The task that finishes when the send's own effects and every descendant have finished
  /// (including descendants added while it waits); cancelling it cancels them all. Set by
  /// ``start(_:)``.
  var task: Task<Void, Never>? {
    members.value.waiter
  }

  /// Starts waiting for `own` (the send's own effect tasks), then for the descendants.
  ///
  /// Descendants are added only while an effect runs, that is before the effect's task ends, so
  /// once every listed task has ended no more can be added.
  func start(_ own: [Task<Void, Never>]) {
    // List the own tasks before the waiter can run, or it could find nothing to wait for.
    members.withValue {
      $0.tasks.insert(contentsOf: own, at: 0)
      $0.ownCount = own.count
    }
    let waiter = Task {
      await withTaskCancellationHandler {
        var index = 0
        while let next = member(at: index) {
          await next.value
          index += 1
        }
      } onCancel: {
        cancelAll()
      }
    }
    members.withValue { $0.waiter = waiter }
  }

  /// Whether the group was cancelled, or every one of the send's own effects was.
  var isCancelled: Bool {
    members.withValue { members in
      if members.waiter?.isCancelled == true { return true }
      guard members.ownCount > 0 else { return false }
      return members.tasks.prefix(members.ownCount).allSatisfy { $0.isCancelled }
    }
  }

  private func member(at index: Int) -> Task<Void, Never>? {
    members.withValue { index < $0.tasks.count ? $0.tasks[index] : nil }
  }

  private func cancelAll() {
    let tasks = members.withValue {
      $0.isCancelled = true
      return $0.tasks
    }
    for task in tasks { task.cancel() }
  }
}

/// Whether one effect's operation has returned; its `send` must not be used after that.
final class EffectCompletion: Sendable {
  private let completed = LockIsolated(false)

  var isCompleted: Bool {
    completed.value
  }

  func complete() {
    completed.setValue(true)
  }
}
