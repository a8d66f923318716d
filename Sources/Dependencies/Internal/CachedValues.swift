import Foundation
import IssueReporting

/// The lazily created default values of one ``DependencyValues`` and its copies, once per key,
/// context and test.
///
/// A default may read other dependencies while it is being created (a live client that uses the
/// clock), so the lock is re-entrant. Values created during a test are cached for that test only:
/// each Swift Testing `@Test` and each XCTest test case starts from fresh values, and tests that
/// run at the same time never see each other's values. `DependencyValues()` starts a new cache,
/// which is how `withDependencies { $0 = DependencyValues() }` and the `.dependencies` test trait
/// give a scope (or one argument of a parameterized test) fresh defaults.
@_spi(Internals) public final class CachedValues: @unchecked Sendable {
  struct CacheKey: Hashable {
    var key: ObjectIdentifier
    var context: DependencyContext
    var test: TestScope.ID?

    /// The key for a value in `context`: values of the test context are kept per running test.
    init(_ key: ObjectIdentifier, context: DependencyContext) {
      self.key = key
      self.context = context
      self.test = context == .test ? TestScope.currentID() : nil
    }
  }

  struct Entry {
    var value: any Sendable
    /// The `prepareDependencies` call that set the value, if one did.
    var preparationID: UUID?
  }

  private let lock = NSRecursiveLock()
  private var cached: [CacheKey: Entry] = [:]
  /// Whether `prepareDependencies` ever set the context, so reads can skip looking for it.
  private var hasPreparedContext = false

  init() {}

  /// The default value of a key in `context`, or, when no scope set one, in the context set by
  /// `prepareDependencies` or else the default context. A default that is not cached yet is
  /// created with `values` as the current dependency values.
  func value<Key: TestDependencyKey>(
    for key: Key.Type, context: DependencyContext?, function: StaticString,
    creatingWith values: DependencyValues
  ) -> Key.Value {
    lock.lock()
    defer { lock.unlock() }
    let context = context ?? preparedContextLocked() ?? .default
    let cacheKey = CacheKey(ObjectIdentifier(key), context: context)
    if let entry = cached[cacheKey], let value = entry.value as? Key.Value {
      return value
    }
    // A default is created with the values it is read through as the current ones, so when it
    // reads other dependencies it sees the reader's overrides. The reader's location goes into
    // `currentAccess` below, not into the current values, where wrappers created by the default
    // would capture it.
    var current = values
    current.access = nil
    let value = DependencyValues.$_current.withValue(current) {
      DependencyValues.$currentName.withValue(function) {
        // The reading wrapper's location, for issues reported while the default is created.
        if let access = values.access {
          DependencyValues.$currentAccess.withValue(access) {
            Self.makeDefault(Key.self, context: context)
          }
        } else {
          Self.makeDefault(Key.self, context: context)
        }
      }
    }
    // A default read only because a field of it is being written is not kept: the scope
    // stores the written value, and a later plain read must still create (and report) its own.
    if !DependencyValues.isSetting {
      cached[cacheKey] = Entry(value: value, preparationID: nil)
    }
    return value
  }

  /// Stores a value set in `prepareDependencies` as the default, unless the default was already
  /// read (or prepared by another call).
  func prepare<Key: TestDependencyKey>(
    _ key: Key.Type, value: Key.Value, context: DependencyContext, preparationID: UUID,
    function: StaticString
  ) {
    let cacheKey = CacheKey(ObjectIdentifier(key), context: context)
    lock.lock()
    defer { lock.unlock() }
    if let existing = cached[cacheKey], existing.preparationID != preparationID {
      if context != .preview {
        reportAlreadyPrepared(Key.self, function: function)
      }
      return
    }
    cached[cacheKey] = Entry(value: value, preparationID: preparationID)
    if key == DependencyContextKey.self { hasPreparedContext = true }
  }

  private static func makeDefault<Key: TestDependencyKey>(
    _ key: Key.Type, context: DependencyContext
  ) -> Key.Value {
    switch context {
    case .live:
      if let liveKey = Key.self as? any DependencyKey.Type,
        let live = liveValue(of: liveKey) as? Key.Value
      {
        return live
      }
      if !DependencyValues.isSetting {
        reportMissingLiveValue(Key.self)
      }
      return Key.previewValue
    case .preview:
      return Key.previewValue
    case .test:
      return Key.testValue
    }
  }

  /// The context set by `prepareDependencies`, if any, for the running test.
  func preparedContext() -> DependencyContext? {
    lock.lock()
    defer { lock.unlock() }
    return preparedContextLocked()
  }

  private func preparedContextLocked() -> DependencyContext? {
    guard hasPreparedContext else { return nil }
    let cacheKey = CacheKey(ObjectIdentifier(DependencyContextKey.self), context: .default)
    return cached[cacheKey]?.value as? DependencyContext
  }

  /// Forgets every cached value.
  public func resetCache() {
    lock.lock()
    defer { lock.unlock() }
    cached = [:]
    hasPreparedContext = false
  }

  /// Forgets the values cached for XCTest test cases (their ids are the observer's counter).
  func resetXCTestValues() {
    lock.lock()
    defer { lock.unlock() }
    cached = cached.filter { !($0.key.test?.rawValue.base is Int) }
  }
}

private func liveValue<Key: DependencyKey>(of key: Key.Type) -> any Sendable {
  Key.liveValue
}
