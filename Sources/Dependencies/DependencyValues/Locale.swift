import Foundation

extension DependencyValues {
  /// The locale text and numbers are formatted for.
  ///
  /// ```swift
  /// @Dependency(\.locale) var locale
  /// let text = number.formatted(.number.locale(locale))
  /// // in a test:
  /// withDependencies { $0.locale = Locale(identifier: "en_US") } operation: { ... }
  /// ```
  ///
  /// Live and preview: the user's current locale. Test: fails the test when read without an
  /// override, then gives the current locale.
  public var locale: Locale {
    get { self[LocaleKey.self] }
    set { self[LocaleKey.self] = newValue }
  }
}

private enum LocaleKey: DependencyKey {
  static var liveValue: Locale { .autoupdatingCurrent }
}
