import ConcurrencyExtras
import Dispatch

extension DispatchQueue {
  /// A dispatch queue's time as a scheduler sees it: a `DispatchTime`.
  public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
    /// The point in time.
    public var dispatchTime: DispatchTime

    /// The scheduler time at `time`.
    public init(_ time: DispatchTime) {
      self.dispatchTime = time
    }

    /// The stride from this time to `other` (negative if `other` is earlier).
    public func distance(to other: Self) -> Stride {
      let from = dispatchTime.uptimeNanoseconds
      let to = other.dispatchTime.uptimeNanoseconds
      return to >= from
        ? .nanoseconds(Int(clamping: to - from))
        : .nanoseconds(-Int(clamping: from - to))
    }

    /// This time moved by `stride` (earlier for a negative stride). Saturates rather than wraps.
    public func advanced(by stride: Stride) -> Self {
      let uptime = dispatchTime.uptimeNanoseconds
      let moved: UInt64
      if stride.magnitude >= 0 {
        let (sum, overflow) = uptime.addingReportingOverflow(UInt64(stride.magnitude))
        moved = overflow ? .max : sum
      } else {
        let back = UInt64(stride.magnitude.magnitude)
        // 0 would read as "now" to Dispatch; 1 is the earliest time that is not.
        moved = uptime > back ? max(uptime - back, 1) : 1
      }
      return Self(DispatchTime(uptimeNanoseconds: moved))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
      lhs.dispatchTime.uptimeNanoseconds < rhs.dispatchTime.uptimeNanoseconds
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.dispatchTime.uptimeNanoseconds == rhs.dispatchTime.uptimeNanoseconds
    }

    public func hash(into hasher: inout Hasher) {
      hasher.combine(dispatchTime.uptimeNanoseconds)
    }

    /// Decodes the time from its uptime in nanoseconds.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      self.init(DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self)))
    }

    /// Encodes the time as its uptime in nanoseconds.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(dispatchTime.uptimeNanoseconds)
    }
  }

  /// How to run the actions a dispatch queue schedules: their quality of service, work item
  /// flags, and a group to enter while they are pending.
  public struct SchedulerOptions: @unchecked Sendable {
    // `@unchecked`: `DispatchGroup` is thread-safe but not marked `Sendable` on every platform.

    /// The quality of service of the scheduled work.
    public var qos: DispatchQoS
    /// The work item flags of the scheduled work.
    public var flags: DispatchWorkItemFlags
    /// The group the scheduled work belongs to, if any.
    public var group: DispatchGroup?

    /// Options with the given quality of service, flags and group.
    public init(
      qos: DispatchQoS = .unspecified,
      flags: DispatchWorkItemFlags = [],
      group: DispatchGroup? = nil
    ) {
      self.qos = qos
      self.flags = flags
      self.group = group
    }
  }
}

extension DispatchQueue.SchedulerTimeType {
  /// A signed length of time on a dispatch queue, counted in nanoseconds. Integer and float
  /// literals are seconds: `advance(by: 1)` is one second, `advance(by: 0.5)` half of one.
  public struct Stride: Comparable, SignedNumeric, ExpressibleByFloatLiteral, Hashable, Codable,
    Sendable, SchedulerTimeIntervalConvertible
  {
    /// The length in nanoseconds.
    public var magnitude: Int

    /// The length as a `DispatchTimeInterval`.
    public var timeInterval: DispatchTimeInterval {
      .nanoseconds(magnitude)
    }

    /// A stride of `timeInterval` (`.never` is the longest stride there is).
    public init(_ timeInterval: DispatchTimeInterval) {
      switch timeInterval {
      case .seconds(let seconds):
        self.magnitude = seconds.multipliedClamping(by: 1_000_000_000)
      case .milliseconds(let milliseconds):
        self.magnitude = milliseconds.multipliedClamping(by: 1_000_000)
      case .microseconds(let microseconds):
        self.magnitude = microseconds.multipliedClamping(by: 1_000)
      case .nanoseconds(let nanoseconds):
        self.magnitude = nanoseconds
      case .never:
        self.magnitude = .max
      @unknown default:
        self.magnitude = .max
      }
    }

    /// A stride of `seconds` seconds, rounded to the nanosecond.
    public init(_ seconds: Double) {
      let nanoseconds = (seconds * 1_000_000_000).rounded()
      if nanoseconds >= Double(Int.max) {
        self.magnitude = .max
      } else if nanoseconds <= Double(Int.min) {
        self.magnitude = .min
      } else {
        // NaN lands here too and is not representable: treat it as no time at all.
        self.magnitude = nanoseconds.isNaN ? 0 : Int(nanoseconds)
      }
    }

    /// A stride of `value` seconds.
    public init(floatLiteral value: Double) {
      self.init(value)
    }

    /// A stride of `value` whole seconds.
    public init(integerLiteral value: Int) {
      self.init(.seconds(value))
    }

    /// A stride of `source` whole seconds, or `nil` if that many nanoseconds do not fit in an
    /// `Int`.
    public init?<T: BinaryInteger>(exactly source: T) {
      guard
        let seconds = Int(exactly: source),
        case (let nanoseconds, false) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
      else { return nil }
      self.magnitude = nanoseconds
    }

    private init(nanoseconds: Int) {
      self.magnitude = nanoseconds
    }

    public static func seconds(_ seconds: Int) -> Self { Self(.seconds(seconds)) }
    public static func seconds(_ seconds: Double) -> Self { Self(seconds) }
    public static func milliseconds(_ milliseconds: Int) -> Self {
      Self(.milliseconds(milliseconds))
    }
    public static func microseconds(_ microseconds: Int) -> Self {
      Self(.microseconds(microseconds))
    }
    public static func nanoseconds(_ nanoseconds: Int) -> Self { Self(nanoseconds: nanoseconds) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.magnitude < rhs.magnitude }

    public static func + (lhs: Self, rhs: Self) -> Self {
      Self(nanoseconds: lhs.magnitude + rhs.magnitude)
    }
    public static func += (lhs: inout Self, rhs: Self) { lhs = lhs + rhs }
    public static func - (lhs: Self, rhs: Self) -> Self {
      Self(nanoseconds: lhs.magnitude - rhs.magnitude)
    }
    public static func -= (lhs: inout Self, rhs: Self) { lhs = lhs - rhs }
    public static func * (lhs: Self, rhs: Self) -> Self {
      Self(nanoseconds: lhs.magnitude * rhs.magnitude)
    }
    public static func *= (lhs: inout Self, rhs: Self) { lhs = lhs * rhs }
    public static prefix func - (operand: Self) -> Self { Self(nanoseconds: -operand.magnitude) }
    public mutating func negate() { magnitude = -magnitude }

    /// Decodes the stride from its length in nanoseconds.
    public init(from decoder: any Decoder) throws {
      self.init(nanoseconds: try decoder.singleValueContainer().decode(Int.self))
    }

    /// Encodes the stride as its length in nanoseconds.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(magnitude)
    }
  }
}

extension Int {
  fileprivate func multipliedClamping(by factor: Int) -> Int {
    let (product, overflow) = multipliedReportingOverflow(by: factor)
    guard overflow else { return product }
    return (self < 0) != (factor < 0) ? .min : .max
  }
}

/// A dispatch queue schedules with `async`, `asyncAfter` and a dispatch timer source, as it does
/// for Combine on Apple platforms.
extension DispatchQueue: Scheduler {
  /// The current dispatch time.
  public var now: SchedulerTimeType {
    SchedulerTimeType(.now())
  }

  /// No tolerance: dispatch is asked to be on time.
  public var minimumTolerance: SchedulerTimeType.Stride {
    .zero
  }

  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    let action = UncheckedSendable(action)
    async(
      group: options?.group,
      qos: options?.qos ?? .unspecified,
      flags: options?.flags ?? []
    ) {
      action.value()
    }
  }

  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    let action = UncheckedSendable(action)
    asyncAfter(
      deadline: date.dispatchTime,
      qos: options?.qos ?? .unspecified,
      flags: options?.flags ?? []
    ) {
      action.value()
    }
  }

  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    let action = UncheckedSendable(action)
    let timer = DispatchSource.makeTimerSource(queue: self)
    timer.setEventHandler(qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) {
      action.value()
    }
    timer.schedule(
      deadline: date.dispatchTime,
      repeating: interval.timeInterval,
      leeway: max(tolerance, minimumTolerance).timeInterval)
    timer.resume()
    return AnyCancellable { timer.cancel() }
  }
}
