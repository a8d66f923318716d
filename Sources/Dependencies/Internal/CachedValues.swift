import Foundation
import IssueReporting

/// The lazily created default values, once per key, context and test.
///
/// A default may read other dependencies while it is being created (a live client that uses the
/// clock), so the lock is re-entrant. Values created during a test are cached for that test only:
/// each Swift Testing `@Test` and each XCTest test case starts from fresh values.
final class CachedValues: @unchecked Sendable {
  static let shared = CachedValues()

  struct CacheKey: Hashable {
    var key: ObjectIdentifier
    var context: DependencyContext
    var test: TestScope.ID?
  }

  private let lock = NSRecursiveLock()
  private var cached: [CacheKey: any Sendable] = [:]

  func value<Key: TestDependencyKey>(for key: Key.Type, context: DependencyContext) -> Key.Value {
    lock.lock()
    defer { lock.unlock() }
    let testID = context == .test ? TestScope.currentID() : nil
    let cacheKey = CacheKey(key: ObjectIdentifier(key), context: context, test: testID)
    if let value = cached[cacheKey], let value = value as? Key.Value {
      return value
    }
    let value: Key.Value
    switch context {
    case .live:
      if let liveKey = Key.self as? any DependencyKey.Type,
        let live = liveValue(of: liveKey) as? Key.Value
      {
        value = live
      } else {
        reportMissingLiveValue(Key.self)
        value = Key.previewValue
      }
    case .preview:
      value = Key.previewValue
    case .test:
      value = Key.testValue
    }
    cached[cacheKey] = value
    return value
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
