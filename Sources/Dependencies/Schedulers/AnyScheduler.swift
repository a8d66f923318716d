import Dispatch

/// A scheduler that forwards to another one, hiding its type, so a feature can hold "a scheduler
/// with dispatch queue time" and be given the main queue when live and a ``TestScheduler`` in
/// tests.
///
/// ```swift
/// @Dependency(\.mainQueue) var mainQueue   // an AnySchedulerOf<DispatchQueue>
///
/// // in a test:
/// let mainQueue = DispatchQueue.test
/// let store = TestStore(initialState: Feature.State()) {
///   Feature()
/// } withDependencies: {
///   $0.mainQueue = mainQueue.eraseToAnyScheduler()
/// }
/// ```
public struct AnyScheduler<
  SchedulerTimeType: Strideable & SendableMetatype, SchedulerOptions: SendableMetatype
>: Scheduler,
  @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // `@unchecked`: the closures reach a scheduler that is used from any thread, as Combine's
  // schedulers are; the ones this module provides are safe to use so.
  private let _now: () -> SchedulerTimeType
  private let _minimumTolerance: () -> SchedulerTimeType.Stride
  private let _schedule: (SchedulerOptions?, @escaping () -> Void) -> Void
  private let _scheduleAfter:
    (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void) -> Void
  private let _scheduleRepeating:
    (
      SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?,
      @escaping () -> Void
    ) -> any Cancellable

  /// A scheduler made of closures, one for each requirement of ``Scheduler``.
  public init(
    minimumTolerance: @escaping () -> SchedulerTimeType.Stride,
    now: @escaping () -> SchedulerTimeType,
    scheduleImmediately: @escaping (SchedulerOptions?, @escaping () -> Void) -> Void,
    delayed:
      @escaping (
        SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void
      ) -> Void,
    interval:
      @escaping (
        SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?,
        @escaping () -> Void
      ) -> any Cancellable
  ) {
    self._minimumTolerance = minimumTolerance
    self._now = now
    self._schedule = scheduleImmediately
    self._scheduleAfter = delayed
    self._scheduleRepeating = interval
  }

  /// A scheduler that forwards everything to `scheduler`.
  public init<S: Scheduler>(_ scheduler: S)
  where S.SchedulerTimeType == SchedulerTimeType, S.SchedulerOptions == SchedulerOptions {
    if let erased = scheduler as? Self {
      self = erased
      return
    }
    self._now = { scheduler.now }
    self._minimumTolerance = { scheduler.minimumTolerance }
    self._schedule = { scheduler.schedule(options: $0, $1) }
    self._scheduleAfter = { scheduler.schedule(after: $0, tolerance: $1, options: $2, $3) }
    self._scheduleRepeating = {
      scheduler.schedule(after: $0, interval: $1, tolerance: $2, options: $3, $4)
    }
  }

  /// The wrapped scheduler's current time.
  public var now: SchedulerTimeType { _now() }

  /// The wrapped scheduler's minimum tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { _minimumTolerance() }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    _schedule(options, action)
  }

  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    _scheduleAfter(date, tolerance, options, action)
  }

  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    _scheduleRepeating(date, interval, tolerance, options, action)
  }
}

/// The type-erased scheduler with the same time and options as `S`:
/// `AnySchedulerOf<DispatchQueue>`.
public typealias AnySchedulerOf<S: Scheduler> = AnyScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

extension Scheduler {
  /// This scheduler behind an ``AnyScheduler``, for a dependency or a property that should not
  /// name the concrete scheduler.
  public func eraseToAnyScheduler() -> AnyScheduler<SchedulerTimeType, SchedulerOptions> {
    AnyScheduler(self)
  }
}

extension AnyScheduler
where
  SchedulerTimeType == DispatchQueue.SchedulerTimeType,
  SchedulerOptions == DispatchQueue.SchedulerOptions
{
  /// The main dispatch queue, type-erased: what `@Dependency(\.mainQueue)` is when live.
  public static var main: Self {
    DispatchQueue.main.eraseToAnyScheduler()
  }
}
