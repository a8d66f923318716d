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

extension DependencyValues {
  /// The user's preferred locales, most preferred first.
  ///
  /// Live and preview: from the user's preferred languages. Test: fails the test when read
  /// without an override. Set it to a fixed list: `$0.preferredLocales = [Locale(identifier:
  /// "de_DE")]`.
  public var preferredLocales: [Locale] {
    get { self[PreferredLocalesKey.self] }
    set { self[PreferredLocalesKey.self] = newValue }
  }
}

private enum PreferredLocalesKey: DependencyKey {
  static var liveValue: [Locale] {
    Locale.preferredLanguages.map { Locale(identifier: $0) }
  }
}

private enum LocaleKey: DependencyKey {
  static var liveValue: Locale { .autoupdatingCurrent }
}
