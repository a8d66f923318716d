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
  ///
  /// `prepareDependencies { $0.context = .live }` changes the context of every read that no scope
  /// has set one for.
  public var context: DependencyContext {
    get {
      storage[ObjectIdentifier(DependencyContextKey.self)] as? DependencyContext
        ?? cachedValues.preparedContext() ?? .default
    }
    set {
      if let preparationID = DependencyValues.preparationID {
        cachedValues.prepare(
          DependencyContextKey.self, value: newValue, context: .default,
          preparationID: preparationID, function: "context")
      } else {
        storage[ObjectIdentifier(DependencyContextKey.self)] = newValue
      }
    }
  }
}

extension DependencyValues {
  /// Fresh dependency values in the live context.
  public static var live: DependencyValues {
    var values = DependencyValues()
    values.context = .live
    return values
  }

  /// Fresh dependency values in the preview context.
  public static var preview: DependencyValues {
    var values = DependencyValues()
    values.context = .preview
    return values
  }

  /// Fresh dependency values in the test context.
  public static var test: DependencyValues {
    var values = DependencyValues()
    values.context = .test
    return values
  }
}

enum DependencyContextKey: DependencyKey {
  static var liveValue: DependencyContext { .live }
  static var previewValue: DependencyContext { .preview }
  static var testValue: DependencyContext { .test }
}
