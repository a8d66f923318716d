import Clocks

extension DependencyValues {
  /// A clock that keeps counting while the system sleeps (`ContinuousClock` when live).
  ///
  /// ```swift
  /// @Dependency(\.continuousClock) var clock
  /// try await clock.sleep(for: .milliseconds(50))
  /// // in a test:
  /// let clock = TestClock()
  /// withDependencies { $0.continuousClock = clock } operation: { ... }
  /// await clock.advance(by: .milliseconds(50))
  /// ```
  ///
  /// Test: an unimplemented clock that fails the test when used without an override.
  public var continuousClock: any Clock<Duration> {
    get { self[ContinuousClockKey.self] }
    set { self[ContinuousClockKey.self] = newValue }
  }

  /// A clock that pauses while the system sleeps (`SuspendingClock` when live).
  ///
  /// Test: an unimplemented clock that fails the test when used without an override.
  public var suspendingClock: any Clock<Duration> {
    get { self[SuspendingClockKey.self] }
    set { self[SuspendingClockKey.self] = newValue }
  }
}

private enum ContinuousClockKey: DependencyKey {
  static let liveValue: any Clock<Duration> = ContinuousClock()
  static var testValue: any Clock<Duration> {
    UnimplementedClock(name: #"@Dependency(\.continuousClock)"#)
  }
}

private enum SuspendingClockKey: DependencyKey {
  static let liveValue: any Clock<Duration> = SuspendingClock()
  static var testValue: any Clock<Duration> {
    UnimplementedClock(name: #"@Dependency(\.suspendingClock)"#)
  }
}
