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
/// `withDependencies(_:operation:)`.
public struct DependencyValues: Sendable {
  /// The dependency values of the current task; set by `withDependencies`.
  @TaskLocal public static var _current = DependencyValues()

  /// Information about the `@Dependency` property wrapper that is reading a value right now, so a
  /// missing test value can be reported at the wrapper's location.
  @TaskLocal static var currentAccess: DependencyAccess?

  var storage: [ObjectIdentifier: any Sendable] = [:]

  /// Creates dependency values with nothing overridden.
  ///
  /// Every read gives the default value of its key in the default context. To read the values in
  /// force in the current scope, use `DependencyValues._current` or ``Dependency``.
  public init() {}

  /// Accesses the dependency of the given key.
  ///
  /// Reading gives the value overridden in this collection, or else the key's default for the
  /// current context: its `liveValue`, `previewValue` or `testValue`. Writing overrides the value.
  public subscript<Key: TestDependencyKey>(key: Key.Type) -> Key.Value {
    get {
      if let value = storage[ObjectIdentifier(key)] {
        guard let value = value as? Key.Value else {
          fatalError("DependencyValues storage holds a value of the wrong type for \(Key.self)")
        }
        return value
      }
      return CachedValues.shared.value(for: Key.self, context: context)
    }
    set {
      storage[ObjectIdentifier(key)] = newValue
    }
  }

  /// Whether a value for the key is overridden in this collection.
  public func isOverridden<Key: TestDependencyKey>(_ key: Key.Type) -> Bool {
    storage[ObjectIdentifier(key)] != nil
  }

  /// Returns these values with every value overridden in `other` taking precedence.
  public func merging(_ other: DependencyValues) -> DependencyValues {
    var result = self
    result.storage.merge(other.storage) { _, new in new }
    return result
  }

  /// Overrides these values with every value overridden in `other`.
  public mutating func merge(_ other: DependencyValues) {
    storage.merge(other.storage) { _, new in new }
  }
}

/// Who is reading a dependency: the `@Dependency` wrapper's key path and location.
struct DependencyAccess: Sendable {
  var keyPath: (any AnyKeyPath & Sendable)?
  var explicitName: String?
  var fileID: StaticString
  var filePath: StaticString
  var line: UInt
  var column: UInt

  init(
    keyPath: (any AnyKeyPath & Sendable)?, name: String?, fileID: StaticString,
    filePath: StaticString, line: UInt, column: UInt
  ) {
    self.keyPath = keyPath
    self.explicitName = name
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// How the dependency is written in `@Dependency(...)`, e.g. `\.speechClient`. Worked out only
  /// when a message needs it.
  var name: String {
    if let explicitName { return explicitName }
    guard let keyPath else { return "?" }
    return DependencyValues.name(of: keyPath, filePath: filePath, line: line)
  }
}

extension DependencyValues {
  /// The name a key path is written with in code, e.g. `\.speechClient`.
  ///
  /// Key path descriptions name stored properties, but on Linux a computed property (every
  /// dependency is one) prints as `<computed 0x… (Type)>`. Then the name is read from the
  /// `@Dependency(...)` at the wrapper's source line, which is on disk when tests run.
  static func name(of keyPath: AnyKeyPath, filePath: StaticString, line: UInt) -> String {
    var description = "\(keyPath)"
    if description.hasPrefix("\\DependencyValues.") {
      description = "\\." + description.dropFirst("\\DependencyValues.".count)
    }
    if !description.contains("<computed"), !description.contains(" ") {
      return description
    }
    return sourceName(filePath: filePath, line: line) ?? description
  }

  /// The argument of `@Dependency(...)` on a source line, e.g. `\.speechClient`.
  static func sourceName(filePath: StaticString, line: UInt) -> String? {
    guard
      line > 0,
      let contents = try? String(contentsOfFile: "\(filePath)", encoding: .utf8)
    else { return nil }
    var lines = contents.split(separator: "\n", omittingEmptySubsequences: false)
    guard Int(line) <= lines.count else { return nil }
    lines = Array(lines[(Int(line) - 1)...].prefix(3))
    let text = lines.joined(separator: " ")
    guard let start = text.range(of: "@Dependency(") else { return nil }
    var depth = 1
    var end = start.upperBound
    while end < text.endIndex {
      switch text[end] {
      case "(": depth += 1
      case ")": depth -= 1
      default: break
      }
      if depth == 0 { break }
      end = text.index(after: end)
    }
    guard depth == 0 else { return nil }
    let argument = text[start.upperBound..<end].trimmingCharacters(in: .whitespaces)
    return argument.isEmpty ? nil : argument
  }
}
