/// A scheduler's stride that can be written in seconds, milliseconds, microseconds or
/// nanoseconds: `.seconds(1)`, `.milliseconds(300)`.
public protocol SchedulerTimeIntervalConvertible: SendableMetatype {
  /// A stride of `seconds` whole seconds.
  static func seconds(_ seconds: Int) -> Self
  /// A stride of `seconds` seconds, fractions allowed: `.seconds(0.25)`.
  static func seconds(_ seconds: Double) -> Self
  /// A stride of `milliseconds` milliseconds.
  static func milliseconds(_ milliseconds: Int) -> Self
  /// A stride of `microseconds` microseconds.
  static func microseconds(_ microseconds: Int) -> Self
  /// A stride of `nanoseconds` nanoseconds.
  static func nanoseconds(_ nanoseconds: Int) -> Self
}
