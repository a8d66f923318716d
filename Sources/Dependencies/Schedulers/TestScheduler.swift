import ConcurrencyExtras
import Dispatch
import Foundation

/// A scheduler whose time stands still until the test moves it, so timing code is tested in an
/// instant and always the same way.
///
/// ```swift
/// let mainQueue = DispatchQueue.test
/// let store = TestStore(initialState: Search.State()) {
///   Search()
/// } withDependencies: {
///   $0.mainQueue = mainQueue.eraseToAnyScheduler()
/// }
/// await store.send(.queryChanged("co"))
/// await mainQueue.advance(by: .milliseconds(300))
/// await store.receive(\.searchResponse) { … }
/// ```
///
/// ``advance(by:)`` runs, in order, every action due up to the new time, and the actions those
/// schedule when they too fall due: actions due at the same time run in the order they were
/// scheduled. Its `async` form, which `await` picks, also lets other tasks run between actions,
/// so an effect woken from `sleep(for:)` sends its action before the next one runs.
public final class TestScheduler<
  SchedulerTimeType: Strideable & SendableMetatype, SchedulerOptions: SendableMetatype
>: Scheduler,
  @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // `@unchecked`: the mutable state below is guarded by `lock`; actions run outside it.
  private struct Pending {
    let order: UInt
    let date: SchedulerTimeType
    let action: () -> Void
  }

  private let lock = NSRecursiveLock()
  private var _now: SchedulerTimeType
  private var pending: [Pending] = []
  private var lastOrder: UInt = 0

  /// A test scheduler whose clock starts at `now`.
  public init(now: SchedulerTimeType) {
    self._now = now
  }

  /// The scheduler's time, which changes only when the test advances it.
  public var now: SchedulerTimeType {
    lock.withLock { _now }
  }

  /// No tolerance: actions run exactly when due.
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

  /// Moves time forward by `stride` (by nothing: runs what is due now), running every action that
  /// falls due on the way.
  public func advance(by stride: SchedulerTimeType.Stride = .zero) {
    advance(to: now.advanced(by: stride))
  }

  /// Moves time forward by `stride`, running every action that falls due on the way and letting
  /// other tasks run before each one and after the last.
  @MainActor
  public func advance(by stride: SchedulerTimeType.Stride = .zero) async {
    await advance(to: now.advanced(by: stride))
  }

  /// Yields long enough for the tasks an action woke to reach their next suspension point.
  ///
  /// Some of an effect's steps run on the global pool, which a loaded machine serves late: with
  /// three busy processes on two cores, `Task.megaYield()`'s 20 yields let a throttle test see
  /// the effect too early in 11 runs of 80, 100 yields in 2, 200 in none (29 Nov). At least 200,
  /// then; more when `TASK_MEGA_YIELD_COUNT` asks for more.
  static func letOtherTasksRun() async {
    await Task.megaYield(count: max(_defaultMegaYieldCount, 200))
  }

  /// Moves time forward to `instant`, running every action due by then. Time never moves back:
  /// advancing to an `instant` in the past does nothing.
  public func advance(to instant: SchedulerTimeType) {
    guard now <= instant else { return }
    while let action = nextAction(until: instant) {
      action()
    }
  }

  /// Moves time forward to `instant`, running every action due by then and letting other tasks
  /// run before each one and after the last.
  @MainActor
  public func advance(to instant: SchedulerTimeType) async {
    guard now <= instant else { return }
    while true {
      await Self.letOtherTasksRun()
      guard let action = nextAction(until: instant) else { return }
      action()
    }
  }

  /// Advances until nothing is scheduled: runs every action, however far ahead. A repeating
  /// action never runs out, so don't call this while one is scheduled.
  public func run() {
    while let date = nextDate() {
      advance(to: date)
    }
  }

  /// Advances until nothing is scheduled, letting other tasks run between actions, so that
  /// actions scheduled by woken tasks run too.
  @MainActor
  public func run() async {
    await Self.letOtherTasksRun()
    while let date = nextDate() {
      await advance(to: date)
    }
  }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    lock.withLock { enqueue(at: _now, action) }
  }

  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    lock.withLock { enqueue(at: date, action) }
  }

  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    // Every run keeps the first run's order, so that repeating actions due at the same time run
    // in the order they were scheduled, however often they have run.
    let order = lock.withLock { nextOrder() }
    func occurrence(at date: SchedulerTimeType) -> () -> Void {
      { [weak self] in
        guard let self else { return }
        let next = date.advanced(by: interval)
        self.lock.withLock {
          self.pending.append(Pending(order: order, date: next, action: occurrence(at: next)))
        }
        action()
      }
    }
    lock.withLock {
      pending.append(Pending(order: order, date: date, action: occurrence(at: date)))
    }
    return AnyCancellable { [weak self] in
      guard let self else { return }
      self.lock.withLock { self.pending.removeAll { $0.order == order } }
    }
  }

  /// Takes the earliest action due by `instant` and moves time to it; when none is due, moves
  /// time to `instant` and returns `nil`.
  private func nextAction(until instant: SchedulerTimeType) -> (() -> Void)? {
    lock.withLock {
      guard
        let index = pending.indices.min(by: {
          (pending[$0].date, pending[$0].order) < (pending[$1].date, pending[$1].order)
        }),
        pending[index].date <= instant
      else {
        if instant > _now { _now = instant }
        return nil
      }
      let next = pending.remove(at: index)
      if next.date > _now { _now = next.date }
      return next.action
    }
  }

  private func nextDate() -> SchedulerTimeType? {
    lock.withLock { pending.map(\.date).min() }
  }

  /// Must be called with `lock` held.
  private func enqueue(at date: SchedulerTimeType, _ action: @escaping () -> Void) {
    pending.append(Pending(order: nextOrder(), date: date, action: action))
  }

  /// Must be called with `lock` held.
  private func nextOrder() -> UInt {
    lastOrder += 1
    return lastOrder
  }
}

/// The test scheduler with the same time and options as `S`: `TestSchedulerOf<DispatchQueue>`.
public typealias TestSchedulerOf<S: Scheduler> = TestScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

extension DispatchQueue {
  /// A test scheduler with dispatch queue time, starting at an arbitrary fixed time.
  ///
  /// ```swift
  /// let mainQueue = DispatchQueue.test
  /// $0.mainQueue = mainQueue.eraseToAnyScheduler()
  /// await mainQueue.advance(by: .seconds(1))
  /// ```
  public static var test: TestSchedulerOf<DispatchQueue> {
    // Uptime 0 means "now" to Dispatch; start just after it so the start is a fixed time.
    TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }
}
