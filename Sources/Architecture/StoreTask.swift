/// The asynchronous work that sending an action to a ``Store`` started.
///
/// ```swift
/// let task = store.send(.startRecording)
/// // later
/// task.cancel()
/// // or wait for the effects to end
/// await task.finish()
/// ```
public struct StoreTask: Hashable, Sendable {
  let rawValue: Task<Void, Never>?
  let group: EffectGroup?

  init(group: EffectGroup?) {
    self.rawValue = group?.task
    self.group = group
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue == rhs.rawValue
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rawValue)
  }

  /// Cancels the effects this task stands for.
  public func cancel() {
    rawValue?.cancel()
  }

  /// Waits until the effects this task stands for have finished or were cancelled.
  public func finish() async {
    await rawValue?.value
  }

  /// Whether the task was cancelled, or every effect the action started was (for example by
  /// `.cancel(id:)`). A send that started no asynchronous effect is never cancelled.
  public var isCancelled: Bool {
    group?.isCancelled ?? false
  }
}
