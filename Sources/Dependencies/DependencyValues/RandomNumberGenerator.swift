import Foundation
import IssueReporting

extension DependencyValues {
  /// A random-number generator that can be made deterministic in tests.
  ///
  /// ```swift
  /// @Dependency(\.withRandomNumberGenerator) var withRandomNumberGenerator
  /// let delay = withRandomNumberGenerator { Int.random(in: 0...200, using: &$0) }
  /// // in a test:
  /// withDependencies {
  ///   $0.withRandomNumberGenerator = WithRandomNumberGenerator(SeededGenerator(seed: 42))
  /// } operation: { ... }
  /// ```
  ///
  /// Live and preview: the system generator. Test: fails the test when used without an override.
  public var withRandomNumberGenerator: WithRandomNumberGenerator {
    get { self[WithRandomNumberGeneratorKey.self] }
    set { self[WithRandomNumberGeneratorKey.self] = newValue }
  }
}

/// Gives serialized access to a random-number generator.
public final class WithRandomNumberGenerator: @unchecked Sendable {
  private var generator: any RandomNumberGenerator
  private let lock = NSLock()
  private let onUse: (@Sendable () -> Void)?

  /// Wraps `generator`; calls are serialized, so it may be used from any task.
  public init(_ generator: some RandomNumberGenerator & Sendable) {
    self.generator = generator
    self.onUse = nil
  }

  init(_ generator: some RandomNumberGenerator & Sendable, onUse: @escaping @Sendable () -> Void) {
    self.generator = generator
    self.onUse = onUse
  }

  /// Runs `work` with exclusive access to the generator.
  public func callAsFunction<R>(
    _ work: (inout any RandomNumberGenerator) throws -> R
  ) rethrows
    -> R
  {
    onUse?()
    lock.lock()
    defer { lock.unlock() }
    return try work(&generator)
  }
}

/// A small deterministic generator (SplitMix64), handy for tests and reproducible demos.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose sequence is fixed by `seed`.
  public init(seed: UInt64) {
    self.state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

private enum WithRandomNumberGeneratorKey: DependencyKey {
  static let liveValue = WithRandomNumberGenerator(SystemRandomNumberGenerator())
  static var testValue: WithRandomNumberGenerator {
    WithRandomNumberGenerator(SystemRandomNumberGenerator()) {
      reportIssue(
        #"Unimplemented: @Dependency(\.withRandomNumberGenerator) was used in a test without an "#
          + #"override. Override it, e.g. with 'WithRandomNumberGenerator(SeededRandomNumberGenerator(seed: 0))'."#
      )
    }
  }
}
