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
    let hex = String(value, radix: 16, uppercase: true)
    let padded = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    self.init(uuidString: "00000000-0000-0000-0000-\(padded.suffix(12))")!
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
