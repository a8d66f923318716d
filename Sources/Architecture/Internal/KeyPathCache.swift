import CasePaths
import Foundation
import IssueReporting

/// The key paths and case paths that `Scope`, `ifLet`, `forEach` and `ifCaseLet` were given at
/// each call site, so that a reducer's `body`, which runs for every action, does not rebuild them.
///
/// A case key path such as `\.child`, and a key path into generic state, is not a static object:
/// the runtime builds it from its pattern each time the expression is evaluated, and converting a
/// case key path to an `AnyCasePath` costs about as much again. The operators therefore take them
/// as autoclosures and evaluate them only as often as needed to tell what the expression is:
///
/// - An expression that makes a new, equal key path each time is a key path literal. After it has
///   done so twice, the call site (for the same generic types) keeps the first one and stops
///   evaluating the expression. In debug builds it is still evaluated every time, and a value that
///   differs from the kept one is reported as an issue (and used).
/// - An expression that hands back the same object each time reads a stored value (a property of
///   the reducer, a `static let`), which may differ between reducers at that call site: it is
///   evaluated every time, which is cheap, and only the conversion is reused while the object
///   stays the same.
/// - An expression whose values differ is evaluated every time, and converted when it changes.
///
/// Two call sites that end up with the same location (generated code) give values that differ, so
/// they are treated as one varying expression: correct, only slower.
@usableFromInline
final class _KeyPathCache: @unchecked Sendable {
  @usableFromInline
  static let shared = _KeyPathCache(verifiesConstants: _isDebugAssertConfiguration())

  /// Where a key path expression is written: the operator's call site, the generic types, and
  /// which of the call's key path arguments it is.
  @usableFromInline
  struct Site: Hashable, @unchecked Sendable {
    /// The file, for messages; sites compare its address (or its text when it has none).
    let fileID: StaticString
    let filePath: StaticString
    let file: UInt
    let fileName: String?
    let line: UInt
    let column: UInt
    let root: ObjectIdentifier
    let value: ObjectIdentifier
    let argument: Int

    @usableFromInline
    init<Root, Value>(
      fileID: StaticString, filePath: StaticString, line: UInt, column: UInt, root: Root.Type,
      value: Value.Type, argument: Int = 0
    ) {
      self.fileID = fileID
      self.filePath = filePath
      if fileID.hasPointerRepresentation {
        self.file = UInt(bitPattern: fileID.utf8Start)
        self.fileName = nil
      } else {
        self.file = 0
        self.fileName = fileID.description
      }
      self.line = line
      self.column = column
      self.root = ObjectIdentifier(root)
      self.value = ObjectIdentifier(value)
      self.argument = argument
    }

    @usableFromInline
    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.file == rhs.file && lhs.line == rhs.line && lhs.column == rhs.column
        && lhs.root == rhs.root && lhs.value == rhs.value && lhs.argument == rhs.argument
        && lhs.fileName == rhs.fileName
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
      hasher.combine(file &+ line &* 31 &+ column &* 1_000_003 &+ UInt(argument))
      hasher.combine(root)
      hasher.combine(value)
    }
  }

  /// What is known about one call site's expression.
  final class Entry {
    /// The last key path the expression gave.
    var keyPath: AnyKeyPath
    /// What the operator needs from it: a ``_CachedCasePath``, or the key path itself.
    var converted: AnyObject
    /// How many times in a row the expression gave a new object equal to the last one.
    var freshAndEqual = 0
    /// Whether the expression ever gave back the same object or a different value.
    var varies = false
    /// Whether the expression gave back the same object every time it was evaluated again.
    var isStored = false
    /// Set once the expression is known to be a literal: the value to use from then on.
    var constant: AnyObject?

    init(keyPath: AnyKeyPath, converted: AnyObject) {
      self.keyPath = keyPath
      self.converted = converted
    }
  }

  /// How many fresh, equal evaluations make an expression a literal.
  static let evaluationsToTrust = 2

  let verifiesConstants: Bool
  // Guarded by `lock`.
  private let lock = NSLock()
  private var entries: [Site: Entry] = [:]

  init(verifiesConstants: Bool) {
    self.verifiesConstants = verifiesConstants
  }

  /// The case path for the case key path expression `keyPath` at `site`.
  @inlinable
  func casePath<Root, Value>(
    _ keyPath: () -> CaseKeyPath<Root, Value>, at site: Site
  ) -> _CachedCasePath<Root, Value> {
    if case .constant(let constant) = known(at: site) {
      return unsafeDowncast(constant, to: _CachedCasePath<Root, Value>.self)
    }
    return unsafeDowncast(
      evaluate(keyPath, at: site) { _CachedCasePath(keyPath: $0) },
      to: _CachedCasePath<Root, Value>.self)
  }

  /// The key path for the key path expression `keyPath` at `site`.
  @inlinable
  func keyPath<Root, Value>(
    _ keyPath: () -> WritableKeyPath<Root, Value>, at site: Site
  ) -> WritableKeyPath<Root, Value> {
    switch known(at: site) {
    case .constant(let constant):
      return unsafeDowncast(constant, to: WritableKeyPath<Root, Value>.self)
    case .stored:
      // The expression hands back a stored key path: reading it is as cheap as a lookup.
      return keyPath()
    case .unknown:
      return unsafeDowncast(
        evaluate(keyPath, at: site) { $0 }, to: WritableKeyPath<Root, Value>.self)
    }
  }

  /// What is known about a site before its expression is evaluated.
  @usableFromInline
  enum Known {
    /// The expression is a literal: use this value.
    case constant(AnyObject)
    /// The expression reads a stored key path (the same object each time): evaluate it.
    case stored
    /// Evaluate the expression through ``evaluate(_:at:convert:)``.
    case unknown
  }

  /// What is known about `site`. In builds that check every evaluation, nothing is.
  @usableFromInline
  func known(at site: Site) -> Known {
    guard !verifiesConstants else { return .unknown }
    lock.lock()
    defer { lock.unlock() }
    guard let entry = entries[site] else { return .unknown }
    if let constant = entry.constant { return .constant(constant) }
    return entry.isStored ? .stored : .unknown
  }

  /// Evaluates the expression at `site` and returns what the operator needs from its value,
  /// made with `convert` only when the value is new.
  @usableFromInline
  func evaluate<Path: AnyKeyPath>(
    _ keyPath: () -> Path, at site: Site, convert: (Path) -> AnyObject
  ) -> AnyObject {
    // Evaluate outside the lock: the expression is the caller's code.
    let evaluated = keyPath()
    lock.lock()
    defer { lock.unlock() }
    guard let entry = entries[site] else {
      entries[site] = Entry(keyPath: evaluated, converted: convert(evaluated))
      return entries[site]!.converted
    }
    if let constant = entry.constant {
      if evaluated == entry.keyPath { return constant }
      reportChangedKeyPath(at: site, from: entry.keyPath, to: evaluated)
      return convert(evaluated)
    }
    if evaluated === entry.keyPath {
      if !entry.varies { entry.isStored = true }
      entry.varies = true
      return entry.converted
    }
    entry.isStored = false
    if evaluated == entry.keyPath {
      if !entry.varies {
        entry.freshAndEqual += 1
        if entry.freshAndEqual >= Self.evaluationsToTrust {
          entry.constant = entry.converted
        }
      }
      return entry.converted
    }
    entry.varies = true
    entry.freshAndEqual = 0
    entry.keyPath = evaluated
    entry.converted = convert(evaluated)
    return entry.converted
  }

  private func reportChangedKeyPath(at site: Site, from old: AnyKeyPath, to new: AnyKeyPath) {
    reportIssue(
      """
      The key path expression at \(site.fileID):\(site.line):\(site.column) gave \(new) after giving \
      \(old) several times.

      'Scope', 'ifLet', 'forEach' and 'ifCaseLet' build a key path literal once per call site and \
      type, so in a release build this call keeps using the first one. To choose between cases at \
      run time, write one operator per case, or keep the key path in a stored property.
      """,
      fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column
    )
  }
}

/// A case key path and the case path converted from it, as `_KeyPathCache` keeps them.
@usableFromInline
final class _CachedCasePath<Root, Value>: @unchecked Sendable {
  @usableFromInline
  let keyPath: CaseKeyPath<Root, Value>

  @usableFromInline
  let casePath: AnyCasePath<Root, Value>

  @usableFromInline
  init(keyPath: CaseKeyPath<Root, Value>) {
    self.keyPath = keyPath
    self.casePath = AnyCasePath(keyPath)
  }
}
