import Foundation

extension DependencyValues {
  /// The calendar dates are computed in.
  ///
  /// ```swift
  /// @Dependency(\.calendar) var calendar
  /// let startOfDay = calendar.startOfDay(for: now)
  /// // in a test:
  /// withDependencies { $0.calendar = Calendar(identifier: .gregorian) } operation: { ... }
  /// ```
  ///
  /// Live and preview: the user's current calendar. Test: fails the test when read without an
  /// override, then gives the current calendar.
  public var calendar: Calendar {
    get { self[CalendarKey.self] }
    set { self[CalendarKey.self] = newValue }
  }
}

private enum CalendarKey: DependencyKey {
  static var liveValue: Calendar { .autoupdatingCurrent }
}
