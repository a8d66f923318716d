extension DependencyValues {
  /// The context dependencies are read in: live, preview or test.
  ///
  /// Setting it in `withDependencies(_:operation:)` switches the default of every
  /// dependency not overridden in that scope:
  ///
  /// ```swift
  /// let store = Store(initialState: Feature.State()) { Feature() } withDependencies: {
  ///   $0.context = .preview
  /// }
  /// ```
  public var context: DependencyContext {
    get { storage[ObjectIdentifier(DependencyContextKey.self)] as? DependencyContext ?? .default }
    set { storage[ObjectIdentifier(DependencyContextKey.self)] = newValue }
  }
}

enum DependencyContextKey: DependencyKey {
  static var liveValue: DependencyContext { .live }
  static var previewValue: DependencyContext { .preview }
  static var testValue: DependencyContext { .test }
}
