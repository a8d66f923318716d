import Foundation

/// Something that can be stopped: what ``Scheduler/schedule(after:interval:tolerance:options:_:)``
/// returns, as Combine's `Cancellable`.
public protocol Cancellable {
  /// Stops the work. Calling it again does nothing.
  func cancel()
}

extension Cancellable {
  /// Keeps this cancellable alive in `set` (type-erased), so the work runs as long as the set
  /// holds it.
  ///
  /// ```swift
  /// var cancellables: Set<AnyCancellable> = []
  /// scheduler.schedule(after: scheduler.now, interval: 1) { tick() }
  ///   .store(in: &cancellables)
  /// ```
  public func store(in set: inout Set<AnyCancellable>) {
    set.insert(erased)
  }

  /// Keeps this cancellable alive in `collection` (type-erased).
  public func store<C: RangeReplaceableCollection>(in collection: inout C)
  where C.Element == AnyCancellable {
    collection.append(erased)
  }

  private var erased: AnyCancellable {
    self as? AnyCancellable ?? AnyCancellable(self)
  }
}

/// A type-erased ``Cancellable`` that cancels when it is deallocated, as Combine's
/// `AnyCancellable` does: keep it (or ``Cancellable/store(in:)-(Set<AnyCancellable>)`` it) for
/// as long as the work should run.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
  // Guarded by `lock`; set to nil on the first `cancel()`, so the closure runs once.
  private var onCancel: (() -> Void)?
  private let lock = NSLock()

  /// A cancellable that runs `cancel` the first time it is cancelled (or deallocated).
  public init(_ cancel: @escaping () -> Void) {
    self.onCancel = cancel
  }

  /// A cancellable that cancels `cancellable`.
  public convenience init(_ cancellable: some Cancellable) {
    self.init { cancellable.cancel() }
  }

  deinit {
    cancel()
  }

  /// Runs the cancellation closure, the first time only.
  public func cancel() {
    let onCancel = lock.withLock {
      defer { self.onCancel = nil }
      return self.onCancel
    }
    onCancel?()
  }

  /// Whether `lhs` and `rhs` are the same object.
  public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
    lhs === rhs
  }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}
