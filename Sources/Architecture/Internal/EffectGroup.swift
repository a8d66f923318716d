import ConcurrencyExtras

/// The tasks that one `send` started, plus the groups of the actions those effects sent back
/// (their descendants), so that the store task returned by `send` covers an effect's whole
/// lifetime, as in TCA: cancelling it cancels the descendants, and waiting for it waits for them.
///
/// A descendant leaves the group as soon as it has finished, so an effect that runs for hours
/// and sends thousands of actions (a speech session's results) holds only the descendants still
/// running, not one finished task per action it ever sent.
final class EffectGroup: Sendable {
  private struct Members {
    /// The send's own effects.
    var own: [Task<Void, Never>] = []
    /// The descendants still running, by the number each got when it joined.
    var descendants: [Int: EffectGroup] = [:]
    var nextNumber = 0
    var isCancelled = false
    var waiter: Task<Void, Never>?
    /// Whether every member has finished: the group takes no more descendants then.
    var isFinished = false
    /// The group this one is a descendant of, and its number there, until it finishes.
    var parent: (group: EffectGroup, number: Int)?
  }

  private let members = LockIsolated(Members())

  /// Adds a descendant (the group of an action one of this group's effects sent back); it is
  /// cancelled at once if this group already was, and leaves when it finishes.
  func append(_ descendant: EffectGroup) {
    let (number, cancel) = members.withValue {
      $0.nextNumber += 1
      $0.descendants[$0.nextNumber] = descendant
      return ($0.nextNumber, $0.isCancelled)
    }
    // The descendant may have finished already; if not, it leaves this group when it does.
    let hasFinished = descendant.members.withValue {
      if !$0.isFinished { $0.parent = (self, number) }
      return $0.isFinished
    }
    if hasFinished { remove(number) }
    if cancel { descendant.task?.cancel() }
  }

  /// How many descendants have not finished yet.
  var runningDescendants: Int {
    members.withValue { $0.descendants.count }
  }

  private func remove(_ number: Int) {
    members.withValue { _ = $0.descendants.removeValue(forKey: number) }
  }

  /// The task that finishes when the send's own effects and every descendant have finished
  /// (including descendants added while it waits); cancelling it cancels them all. Set by
  /// ``start(_:)``.
  var task: Task<Void, Never>? {
    members.value.waiter
  }

  /// Starts waiting for `own` (the send's own effect tasks), then for the descendants.
  ///
  /// Descendants are added only while an own effect runs (its `send` adds them before the
  /// effect goes on), so once the own tasks have ended and no descendant is left, none can come.
  func start(_ own: [Task<Void, Never>]) {
    // List the own tasks before the waiter can run, or it could find nothing to wait for.
    members.withValue { $0.own = own }
    let waiter = Task {
      await withTaskCancellationHandler {
        for task in own { await task.value }
        while let (number, next) = anyDescendant() {
          await next.task?.value
          remove(number)
        }
      } onCancel: {
        cancelAll()
      }
      finish()
    }
    members.withValue { $0.waiter = waiter }
  }

  /// Whether the group was cancelled, or every one of the send's own effects was.
  var isCancelled: Bool {
    members.withValue { members in
      if members.waiter?.isCancelled == true { return true }
      guard !members.own.isEmpty else { return false }
      return members.own.allSatisfy { $0.isCancelled }
    }
  }

  private func anyDescendant() -> (Int, EffectGroup)? {
    members.withValue { $0.descendants.first.map { ($0.key, $0.value) } }
  }

  /// Marks the group finished and leaves its parent.
  private func finish() {
    let parent = members.withValue { members in
      members.isFinished = true
      defer { members.parent = nil }
      return members.parent
    }
    if let parent { parent.group.remove(parent.number) }
  }

  private func cancelAll() {
    let (own, descendants) = members.withValue {
      $0.isCancelled = true
      return ($0.own, Array($0.descendants.values))
    }
    for task in own { task.cancel() }
    for descendant in descendants { descendant.task?.cancel() }
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
