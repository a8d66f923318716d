import Foundation
import IssueReporting

extension DependencyValues {
  /// A generator of the current date.
  ///
  /// ```swift
  /// @Dependency(\.date.now) var now
  /// // in a test:
  /// withDependencies { $0.date.now = Date(timeIntervalSince1970: 0) } operation: { ... }
  /// ```
  ///
  /// Live and preview: the system clock. Test: fails the test when read without an override.
  public var date: DateGenerator {
    get { self[DateGeneratorKey.self] }
    set { self[DateGeneratorKey.self] = newValue }
  }
}

/// Generates dates; call it or read ``now``.
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Date

  /// A generator that returns what `generate` returns.
  public init(_ generate: @escaping @Sendable () -> Date) {
    self.generate = generate
  }

  /// The current date according to this generator.
  ///
  /// Setting it makes the generator return that date from then on, so a test can write
  /// `$0.date.now = Date(timeIntervalSince1970: 0)`.
  public var now: Date {
    get { generate() }
    set { self = .constant(newValue) }
  }

  /// Returns the current date according to this generator.
  public func callAsFunction() -> Date { generate() }

  /// A generator that always returns the same date.
  public static func constant(_ date: Date) -> Self {
    Self { date }
  }

  /// The system clock.
  public static var live: Self {
    Self { Date() }
  }
}

private enum DateGeneratorKey: DependencyKey {
  static let liveValue = DateGenerator.live
  static var testValue: DateGenerator {
    DateGenerator {
      // Writing through a key path (`\.date.now` in a test trait) reads `now` before setting it.
      if !DependencyValues.isSetting {
        reportIssue(
          #"Unimplemented: @Dependency(\.date) was read in a test without an override. "#
            + #"Override it, e.g. '$0.date.now = Date(timeIntervalSince1970: 0)'."#)
      }
      return Date()
    }
  }
}
