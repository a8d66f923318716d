import Foundation

extension DependencyValues {
  /// The time zone dates are shown in.
  ///
  /// ```swift
  /// @Dependency(\.timeZone) var timeZone
  /// // in a test:
  /// withDependencies { $0.timeZone = TimeZone(secondsFromGMT: 0)! } operation: { ... }
  /// ```
  ///
  /// Live and preview: the system's current time zone. Test: fails the test when read without an
  /// override, then gives the current time zone.
  public var timeZone: TimeZone {
    get { self[TimeZoneKey.self] }
    set { self[TimeZoneKey.self] = newValue }
  }
}

private enum TimeZoneKey: DependencyKey {
  static var liveValue: TimeZone { .autoupdatingCurrent }
}
