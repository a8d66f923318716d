import CasePaths
import Foundation

/// The case paths that `Scope`, `ifLet`, `forEach` and `ifCaseLet` convert from case key paths,
/// kept by key path so that a reducer's `body`, which runs for every action, does not convert the
/// same case key path again.
///
/// The operators always evaluate the key path expressions they are given, so they behave exactly
/// as if nothing were cached: only what is derived from a key path's value (its `AnyCasePath`) is
/// reused, and it is looked up by that value. Key paths are `Hashable`, and two key paths are
/// equal only when they have the same type and the same components, so a case key path can never
/// be given the case path of another one, whatever call site or reducer it comes from.
///
/// The cache holds one entry per distinct case key path a process converts: key path literals in
/// code, times the generic types they are used with. It is never emptied.
@usableFromInline
final class _KeyPathCache: @unchecked Sendable {
  @usableFromInline
  static let shared = _KeyPathCache()

  // Guarded by `lock`.
  private let lock = NSLock()
  private var casePaths: [AnyKeyPath: AnyObject] = [:]

  /// The case path that extracts and embeds the case of `keyPath`.
  @inlinable
  func casePath<Root, Value>(_ keyPath: CaseKeyPath<Root, Value>) -> AnyCasePath<Root, Value> {
    unsafeDowncast(
      cached(keyPath) { _CachedCasePath(keyPath: keyPath) },
      to: _CachedCasePath<Root, Value>.self
    ).casePath
  }

  /// The value kept for `keyPath`, made with `convert` if there is none yet.
  ///
  /// Equal key paths have the same type, so the value kept for an equal key path is the one
  /// `convert` would make.
  @usableFromInline
  func cached(_ keyPath: AnyKeyPath, convert: () -> AnyObject) -> AnyObject {
    lock.lock()
    if let converted = casePaths[keyPath] {
      lock.unlock()
      return converted
    }
    lock.unlock()
    // Convert outside the lock: two threads may both convert, and either result is right.
    let converted = convert()
    lock.lock()
    defer { lock.unlock() }
    if let existing = casePaths[keyPath] { return existing }
    casePaths[keyPath] = converted
    return converted
  }
}

/// A case path converted from a case key path, as `_KeyPathCache` keeps it.
@usableFromInline
final class _CachedCasePath<Root, Value>: @unchecked Sendable {
  @usableFromInline
  let casePath: AnyCasePath<Root, Value>

  @usableFromInline
  init(keyPath: CaseKeyPath<Root, Value>) {
    self.casePath = AnyCasePath(keyPath)
  }
}
