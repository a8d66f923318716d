import Dispatch

/// A scheduler that runs every action at once, on the caller's thread, whatever time it was
/// scheduled for; its time never moves.
///
/// For tests where timing is not the point: a feature that sleeps on it sleeps not at all.
///
/// ```swift
/// $0.mainQueue = .immediate
/// ```
///
/// A repeating action runs once.
public struct ImmediateScheduler<
  SchedulerTimeType: Strideable & SendableMetatype, SchedulerOptions: SendableMetatype
>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  /// The scheduler's time, which stays where it was created.
  public let now: SchedulerTimeType

  /// No tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

  /// An immediate scheduler whose time is `now`.
  public init(now: SchedulerTimeType) {
    self.now = now
  }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    action()
  }

  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    action()
  }

  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    action()
    return AnyCancellable {}
  }
}

extension ImmediateScheduler: Sendable
where SchedulerTimeType: Sendable, SchedulerTimeType.Stride: Sendable {}

/// The immediate scheduler with the same time and options as `S`.
public typealias ImmediateSchedulerOf<S: Scheduler> = ImmediateScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

extension DispatchQueue {
  /// An immediate scheduler with dispatch queue time.
  public static var immediate: ImmediateSchedulerOf<DispatchQueue> {
    ImmediateScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }
}

extension AnyScheduler
where
  SchedulerTimeType == DispatchQueue.SchedulerTimeType,
  SchedulerOptions == DispatchQueue.SchedulerOptions
{
  /// An immediate scheduler with dispatch queue time, type-erased: `$0.mainQueue = .immediate`.
  public static var immediate: Self {
    DispatchQueue.immediate.eraseToAnyScheduler()
  }
}
