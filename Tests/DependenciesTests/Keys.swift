import ConcurrencyExtras
import Dependencies
import Foundation

// Keys used by the tests. Each getter counts how often it runs, so the tests can see caching.

let liveOnlyCreations = LockIsolated(0)
let countingTestCreations = LockIsolated(0)

/// A key with only a live value, as in an app that never wrote a test value.
struct LiveOnlyClient: Sendable, Equatable {
  var name: String
}

extension LiveOnlyClient: DependencyKey {
  static var liveValue: LiveOnlyClient {
    liveOnlyCreations.withValue { $0 += 1 }
    return LiveOnlyClient(name: "live")
  }
}

extension DependencyValues {
  var liveOnly: LiveOnlyClient {
    get { self[LiveOnlyClient.self] }
    set { self[LiveOnlyClient.self] = newValue }
  }
}

/// A key with all three values.
enum NumberKey: DependencyKey {
  static let liveValue = 1
  static let previewValue = 2
  static let testValue = 3
}

/// A key with only live and test values: its preview value is the live one.
enum LivePreviewKey: DependencyKey {
  static let liveValue = "live"
  static let testValue = "test"
}

/// A key with only a test value: its preview value is the test one.
enum TestOnlyKey: TestDependencyKey {
  static let testValue = "test only"
}

extension DependencyValues {
  var number: Int {
    get { self[NumberKey.self] }
    set { self[NumberKey.self] = newValue }
  }
  var livePreview: String {
    get { self[LivePreviewKey.self] }
    set { self[LivePreviewKey.self] = newValue }
  }
  var testOnly: String {
    get { self[TestOnlyKey.self] }
    set { self[TestOnlyKey.self] = newValue }
  }
}

/// A reference type, so tests can tell a cached instance from a freshly created one.
final class Box: Sendable {
  let serial: Int
  init(serial: Int) { self.serial = serial }
}

/// A key whose test value is a new `Box` each time the getter runs.
enum CountingKey: TestDependencyKey {
  static var testValue: Box {
    Box(
      serial: countingTestCreations.withValue {
        $0 += 1
        return $0
      })
  }
}

/// A key whose default reads another dependency while it is being created.
enum DerivedKey: TestDependencyKey {
  static var testValue: String {
    "derived from \(DependencyValues._current.number)"
  }
}

extension DependencyValues {
  var counting: Box {
    get { self[CountingKey.self] }
    set { self[CountingKey.self] = newValue }
  }
  var derived: String {
    get { self[DerivedKey.self] }
    set { self[DerivedKey.self] = newValue }
  }
}

/// A type that is its own key.
struct Greeter: TestDependencyKey, Sendable {
  var greeting: String
  static let testValue = Greeter(greeting: "hi from the test value")
}

/// A model that reads its dependencies later, after the scope that created it has ended.
final class Model: @unchecked Sendable {
  @Dependency(\.number) var number
  @Dependency(Greeter.self) var greeter
  @Dependency(\.uuid) var uuid

  func numberFromTask() async -> Int {
    await Task { self.number }.value
  }
}
