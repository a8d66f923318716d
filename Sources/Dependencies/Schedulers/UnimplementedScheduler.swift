import Dispatch
import IssueReporting

/// A scheduler that reports an issue whenever it is used: what `@Dependency(\.mainQueue)` is in
/// tests, so a test that lets a feature schedule work without saying how time moves fails.
///
/// After reporting, it behaves like an ``ImmediateScheduler`` (actions run at once), so the code
/// under test keeps going and the report is the only failure.
///
/// ```swift
/// $0.mainQueue = .unimplemented("Feature.mainQueue")
/// ```
public struct UnimplementedScheduler<
  SchedulerTimeType: Strideable & SendableMetatype, SchedulerOptions: SendableMetatype
>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  /// What the issues name as the scheduler that was used, such as `@Dependency(\.mainQueue)`.
  public let prefix: String
  private let time: SchedulerTimeType

  /// An unimplemented scheduler named `prefix` in its reports, whose time is `now`.
  public init(_ prefix: String = "", now: SchedulerTimeType) {
    self.prefix = prefix
    self.time = now
  }

  /// Reports the read, then returns the time the scheduler was created with.
  public var now: SchedulerTimeType {
    report("read its current time ('now')")
    return time
  }

  /// Reports the read, then returns zero.
  public var minimumTolerance: SchedulerTimeType.Stride {
    report("read its minimum tolerance")
    return .zero
  }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    report("was asked to run an action as soon as possible")
    action()
  }

  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    report("was asked to run an action later (a delay or a sleep)")
    action()
  }

  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    report("was asked to run an action repeatedly (a timer or a sleep)")
    action()
    return AnyCancellable {}
  }

  private func report(_ what: String) {
    let name = prefix.isEmpty ? "An unimplemented scheduler" : "Unimplemented: '\(prefix)'"
    reportIssue(
      """
      \(name) \(what).

      Schedulers are unimplemented in tests so that a test says how time moves. Override it for \
      this test with a 'TestScheduler' ('DispatchQueue.test', then 'advance(by:)') or, when \
      timing does not matter, with '.immediate'.
      """
    )
  }
}

extension UnimplementedScheduler: Sendable
where SchedulerTimeType: Sendable, SchedulerTimeType.Stride: Sendable {}

/// The unimplemented scheduler with the same time and options as `S`.
public typealias UnimplementedSchedulerOf<S: Scheduler> = UnimplementedScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

extension DispatchQueue {
  /// An unimplemented scheduler with dispatch queue time, named `DispatchQueue` in its reports.
  public static var unimplemented: UnimplementedSchedulerOf<DispatchQueue> {
    unimplemented("DispatchQueue")
  }

  /// An unimplemented scheduler with dispatch queue time, named `prefix` in its reports.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<DispatchQueue> {
    UnimplementedScheduler(prefix, now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }
}

extension AnyScheduler
where
  SchedulerTimeType == DispatchQueue.SchedulerTimeType,
  SchedulerOptions == DispatchQueue.SchedulerOptions
{
  /// An unimplemented scheduler with dispatch queue time, type-erased.
  public static var unimplemented: Self {
    DispatchQueue.unimplemented.eraseToAnyScheduler()
  }

  /// An unimplemented scheduler with dispatch queue time, named `prefix` in its reports,
  /// type-erased.
  public static func unimplemented(_ prefix: String) -> Self {
    DispatchQueue.unimplemented(prefix).eraseToAnyScheduler()
  }
}
