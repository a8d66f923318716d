import ConcurrencyExtras
import Foundation
import IssueReporting

extension DependencyValues {
  /// A generator of UUIDs.
  ///
  /// ```swift
  /// @Dependency(\.uuid) var uuid
  /// let id = uuid()
  /// // in a test, predictable ids 00000000-0000-0000-0000-000000000000, ...001, ...002:
  /// withDependencies { $0.uuid = .incrementing } operation: { ... }
  /// ```
  ///
  /// Live and preview: random UUIDs. Test: fails the test when read without an override.
  public var uuid: UUIDGenerator {
    get { self[UUIDGeneratorKey.self] }
    set { self[UUIDGeneratorKey.self] = newValue }
  }
}

/// Generates UUIDs; call it like a function.
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID

  /// A generator that returns what `generate` returns.
  public init(_ generate: @escaping @Sendable () -> UUID) {
    self.generate = generate
  }

  /// Returns a new UUID.
  public func callAsFunction() -> UUID { generate() }

  /// Random UUIDs (version 4).
  public static var live: Self { Self { UUID() } }

  /// Always the same UUID.
  public static func constant(_ uuid: UUID) -> Self { Self { uuid } }

  /// UUIDs counting up from zero: `00000000-0000-0000-0000-000000000000`, then `…0001`, and so
  /// on. Each call to `incrementing` starts its own count.
  public static var incrementing: Self {
    let counter = LockIsolated<UInt64>(0)
    return Self {
      let value = counter.withValue { count in
        defer { count += 1 }
        return count
      }
      return UUID(counting: value)
    }
  }
}

extension UUID {
  /// The UUID whose last twelve hex digits are `value`, as used by ``UUIDGenerator/incrementing``.
  public init(counting value: UInt64) {
    self.init(Int(truncatingIfNeeded: value & 0xFFFF_FFFF_FFFF))
  }

  /// A UUID made from an integer, handy for predictable ids in tests: `UUID(0)` is
  /// `00000000-0000-0000-0000-000000000000`, `UUID(10)` is `00000000-0000-0000-0000-00000000000A`.
  ///
  /// The integer fills the last sixteen hex digits; a negative integer sets the digit before them.
  /// ``UUIDGenerator/incrementing`` produces `UUID(0)`, `UUID(1)`, and so on.
  public init(_ intValue: Int) {
    let magnitude = intValue.magnitude
    var hex = String(magnitude, radix: 16, uppercase: true)
    hex = String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    hex.insert("-", at: hex.index(hex.startIndex, offsetBy: 4))
    self.init(uuidString: "00000000-0000-000\(intValue < 0 ? "1" : "0")-\(hex)")!
  }
}

private enum UUIDGeneratorKey: DependencyKey {
  static let liveValue = UUIDGenerator.live
  static var testValue: UUIDGenerator {
    UUIDGenerator {
      reportIssue(
        #"Unimplemented: @Dependency(\.uuid) was read in a test without an override. "#
          + #"Override it, e.g. '$0.uuid = .incrementing'."#)
      return UUID()
    }
  }
}
