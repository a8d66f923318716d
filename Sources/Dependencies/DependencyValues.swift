import Foundation
import IssueReporting

/// The collection of dependencies in force where code runs.
///
/// `DependencyValues` holds the values overridden in the current scope, keyed by their key type;
/// everything not overridden falls back to the key's default for the current
/// ``DependencyContext`` (live, preview or test), created lazily once and cached.
///
/// Register a dependency with a computed property that goes through the key's subscript:
///
/// ```swift
/// extension DependencyValues {
///   public var speechClient: SpeechClient {
///     get { self[SpeechClient.self] }
///     set { self[SpeechClient.self] = newValue }
///   }
/// }
/// ```
///
/// Read it with ``Dependency`` and override it for a scope with
/// `withDependencies(_:operation:)`. Assigning a fresh `DependencyValues()` in
/// `withDependencies` (`$0 = DependencyValues()`) starts the scope from fresh default values.
public struct DependencyValues: Sendable {
  /// The dependency values of the current task; set by `withDependencies`.
  @TaskLocal public static var _current = DependencyValues()

  /// Information about the `@Dependency` property wrapper that is reading a value right now, so a
  /// missing test value can be reported at the wrapper's location.
  @TaskLocal static var currentAccess: DependencyAccess?

  /// The name of the `DependencyValues` property whose default is being created (its `#function`).
  @TaskLocal static var currentName: StaticString?

  /// Whether dependencies are being overridden, in the update closure of `withDependencies` or
  /// `prepareDependencies`, or through values that are ``isBeingSet``. The read that a write such
  /// as `$0.client.endpoint = …` implies must not report a missing test value.
  @TaskLocal static var isSetting = false

  /// Identifies the running `prepareDependencies` call: its writes go to the cached defaults.
  @TaskLocal static var preparationID: UUID?

  var storage: [ObjectIdentifier: any Sendable] = [:]

  /// The `@Dependency` wrapper reading through these values, if one is. It becomes
  /// ``currentAccess`` only where a default is created (the only code that reports issues about
  /// the read), so that an ordinary read does not pay for entering a task-local scope.
  var access: DependencyAccess?

  /// Whether these values are being written through a mutable property, such as a test store's
  /// `dependencies` in `store.dependencies.calendar.firstWeekday = 2`, where `isSetting` cannot
  /// be set around the write. While it is `true`, reading a key that is not overridden counts as
  /// setting, as in the update closure of `withDependencies`: the read that the write implies
  /// reports nothing and its default is not cached. The owner of the property sets it for the
  /// duration of the write only, so it never reaches the values a feature reads.
  @_spi(Internals) public var isBeingSet = false

  /// The default values created for these values. `DependencyValues()` starts a fresh cache, and
  /// copies share it.
  @_spi(Internals) public var cachedValues = CachedValues()

  /// Creates dependency values with nothing overridden and fresh default values.
  ///
  /// Every read gives the default value of its key in the default context. To read the values in
  /// force in the current scope, use `DependencyValues._current` or ``Dependency``.
  public init() {}

  /// Accesses the dependency of the given key.
  ///
  /// Reading gives the value overridden in this collection, or else the key's default for the
  /// current context: its `liveValue`, `previewValue` or `testValue`. Writing overrides the value.
  /// `function` names the dependency in reported issues; its default, `#function`, is the name
  /// of the `DependencyValues` property that calls the subscript.
  public subscript<Key: TestDependencyKey>(
    key: Key.Type,
    function function: StaticString = #function
  ) -> Key.Value {
    get {
      if let value = storage[ObjectIdentifier(key)] {
        guard let value = value as? Key.Value else {
          fatalError("DependencyValues storage holds a value of the wrong type for \(Key.self)")
        }
        return value
      }
      if isBeingSet {
        var values = self
        values.isBeingSet = false
        return DependencyValues.$isSetting.withValue(true) { values[key, function: function] }
      }
      return cachedValues.value(
        for: Key.self,
        context: storage[ObjectIdentifier(DependencyContextKey.self)] as? DependencyContext,
        function: function,
        creatingWith: self)
    }
    set {
      if let preparationID = DependencyValues.preparationID {
        cachedValues.prepare(
          Key.self, value: newValue, context: context, preparationID: preparationID,
          function: function)
      } else {
        storage[ObjectIdentifier(key)] = newValue
      }
    }
  }

  /// Whether a value for the key is overridden in this collection.
  public func isOverridden<Key: TestDependencyKey>(_ key: Key.Type) -> Bool {
    storage[ObjectIdentifier(key)] != nil
  }

  /// Returns these values with every value overridden in `other` taking precedence.
  public func merging(_ other: DependencyValues) -> DependencyValues {
    var result = self
    result.merge(other)
    return result
  }

  /// Overrides these values with every value overridden in `other`.
  public mutating func merge(_ other: DependencyValues) {
    guard !other.storage.isEmpty else { return }
    if storage.isEmpty {
      storage = other.storage
    } else {
      storage.merge(other.storage) { _, new in new }
    }
  }
}

/// Who is reading a dependency: the `@Dependency` wrapper's location and, for a key type, its
/// name. The key-path name comes from the `DependencyValues` property (`#function`).
///
/// A class, so that ``DependencyValues`` can carry one to where a default is created for the
/// price of a reference.
final class DependencyAccess: Sendable {
  let explicitName: String?
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  init(
    explicitName: String?, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
  ) {
    self.explicitName = explicitName
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}

extension DependencyValues {
  /// How a dependency is written in `@Dependency(...)`, e.g. `\.speechClient`, from the name of
  /// the `DependencyValues` property that read it and the reading wrapper.
  static func dependencyName(function: StaticString?) -> String? {
    if let function {
      let name = "\(function)"
      if !name.isEmpty, !name.contains("(") { return "\\.\(name)" }
    }
    return currentAccess?.explicitName
  }
}
