/// Something that runs closures now, at a given time, or repeatedly: a Combine-free version of
/// Combine's `Scheduler`, with the same requirements and the same names.
///
/// Features that take a scheduler (`@Dependency(\.mainQueue)`) sleep on it in effects, and tests
/// swap in a ``TestScheduler`` whose time moves only when the test says so:
///
/// ```swift
/// @Dependency(\.mainQueue) var mainQueue
///
/// return .run { send in
///   try await mainQueue.sleep(for: .seconds(1))
///   await send(.timerTicked)
/// }
/// ```
///
/// `DispatchQueue` conforms, and so do the schedulers this module provides: ``AnyScheduler``,
/// ``TestScheduler``, ``ImmediateScheduler`` and ``UnimplementedScheduler``.
///
/// Schedulers are used from any thread, and the async helpers (`sleep(for:)`, `timer(interval:)`)
/// and effect operators hand them between tasks: so a scheduler's type and its time and options
/// types are `SendableMetatype`, which every type is unless it conforms in an isolated way.
public protocol Scheduler<SchedulerTimeType>: SendableMetatype {
  /// How the scheduler measures time: a point in time that can be moved by a stride.
  associatedtype SchedulerTimeType: Strideable, SendableMetatype
  where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible

  /// Options that tune how an action is scheduled (for a dispatch queue, its quality of service).
  associatedtype SchedulerOptions: SendableMetatype

  /// The scheduler's current time.
  var now: SchedulerTimeType { get }

  /// The smallest tolerance the scheduler allows when scheduling for a time.
  var minimumTolerance: SchedulerTimeType.Stride { get }

  /// Runs `action` as soon as possible.
  func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)

  /// Runs `action` once, at `date` or later (up to `tolerance` later).
  func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  )

  /// Runs `action` at `date` and then every `interval`, until the returned value is cancelled.
  func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable
}

extension Scheduler {
  /// Runs `action` as soon as possible, with default options.
  public func schedule(_ action: @escaping () -> Void) {
    schedule(options: nil, action)
  }

  /// Runs `action` once, at `date` or later, with the scheduler's minimum tolerance.
  public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
    schedule(after: date, tolerance: minimumTolerance, options: nil, action)
  }

  /// Runs `action` once, at `date` or later (up to `tolerance` later), with default options.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    _ action: @escaping () -> Void
  ) {
    schedule(after: date, tolerance: tolerance, options: nil, action)
  }

  /// Runs `action` at `date` and then every `interval`, until the returned value is cancelled.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    schedule(
      after: date, interval: interval, tolerance: minimumTolerance, options: nil, action)
  }

  /// Runs `action` at `date` and then every `interval` (each run up to `tolerance` late), until
  /// the returned value is cancelled.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
  }
}
