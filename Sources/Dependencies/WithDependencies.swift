import Foundation

/// Overrides dependencies for the duration of an operation.
///
/// Every dependency read inside `operation` — directly, by objects created there, and by tasks
/// started there — sees the values set in `updateValuesForOperation`:
///
/// ```swift
/// let model = withDependencies {
///   $0.uuid = .incrementing
///   $0.context = .preview
/// } operation: {
///   FeatureModel()
/// }
/// ```
@discardableResult
public func withDependencies<R>(
  _ updateValuesForOperation: (inout DependencyValues) throws -> Void,
  operation: () throws -> R
) rethrows -> R {
  var values = DependencyValues._current
  try DependencyValues.$isSetting.withValue(true) {
    try updateValuesForOperation(&values)
  }
  return try DependencyValues.$_current.withValue(values) {
    try DependencyObjects.shared.remember(operation())
  }
}

/// Overrides dependencies for the duration of an asynchronous operation.
@discardableResult
public func withDependencies<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ updateValuesForOperation: (inout DependencyValues) async throws -> Void,
  operation: () async throws -> R
) async rethrows -> R {
  var values = DependencyValues._current
  try await DependencyValues.$isSetting.withValue(true) {
    try await updateValuesForOperation(&values)
  }
  return try await DependencyValues.$_current.withValue(values) {
    try await DependencyObjects.shared.remember(operation())
  }
}

/// Runs an operation with the dependencies that `model` was created with — so a child model made
/// by a parent inherits the parent's dependencies.
///
/// The parent's dependencies are those its `@Dependency` properties captured, or, for an object
/// without any, the ones in force when it was returned from `withDependencies`. Values overridden
/// in the current scope win over the parent's.
///
/// ```swift
/// final class ParentModel {
///   @Dependency(\.uuid) var uuid
///   func makeChild() -> ChildModel {
///     withDependencies(from: self) { ChildModel() }
///   }
/// }
/// ```
@discardableResult
public func withDependencies<Model, R>(
  from model: Model,
  operation: () throws -> R
) rethrows -> R {
  try withDependencies(from: model, { _ in }, operation: operation)
}

/// Runs an operation with the dependencies that `model` was created with, the overrides of the
/// current scope on top, and then the overrides made in `updateValuesForOperation`.
@discardableResult
public func withDependencies<Model, R>(
  from model: Model,
  _ updateValuesForOperation: (inout DependencyValues) throws -> Void,
  operation: () throws -> R
) rethrows -> R {
  var values = capturedDependencies(of: model).merging(DependencyValues._current)
  try DependencyValues.$isSetting.withValue(true) {
    try updateValuesForOperation(&values)
  }
  return try DependencyValues.$_current.withValue(values) {
    try DependencyObjects.shared.remember(operation())
  }
}

/// The asynchronous form of `withDependencies(from:operation:)`.
@discardableResult
public func withDependencies<Model, R>(
  from model: Model,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws -> R
) async rethrows -> R {
  try await withDependencies(from: model, { _ in }, operation: operation)
}

/// The asynchronous form of `withDependencies(from:_:operation:)`.
@discardableResult
public func withDependencies<Model, R>(
  from model: Model,
  isolation: isolated (any Actor)? = #isolation,
  _ updateValuesForOperation: (inout DependencyValues) async throws -> Void,
  operation: () async throws -> R
) async rethrows -> R {
  var values = capturedDependencies(of: model).merging(DependencyValues._current)
  try await DependencyValues.$isSetting.withValue(true) {
    try await updateValuesForOperation(&values)
  }
  return try await DependencyValues.$_current.withValue(values) {
    try await DependencyObjects.shared.remember(operation())
  }
}

/// Captures the dependencies in force now, to re-apply them in an escaping closure that would
/// otherwise run without them (a callback, a `DispatchQueue` block, a C callback).
///
/// ```swift
/// withEscapedDependencies { dependencies in
///   queue.async {
///     dependencies.yield {
///       // the same dependencies as where withEscapedDependencies was called
///     }
///   }
/// }
/// ```
public func withEscapedDependencies<R>(
  _ operation: (DependencyValues.Continuation) throws -> R
)
  rethrows -> R
{
  try operation(DependencyValues.Continuation(values: DependencyValues._current))
}

/// The asynchronous form of `withEscapedDependencies(_:)`.
public func withEscapedDependencies<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ operation: (DependencyValues.Continuation) async throws -> R
) async rethrows -> R {
  try await operation(DependencyValues.Continuation(values: DependencyValues._current))
}

extension DependencyValues {
  /// Dependencies captured by `withEscapedDependencies(_:)`, to be re-applied later.
  public struct Continuation: Sendable {
    let values: DependencyValues

    /// Runs `operation` with the captured dependencies.
    public func yield<R>(_ operation: () throws -> R) rethrows -> R {
      try DependencyValues.$_current.withValue(values, operation: operation)
    }

    /// Runs an asynchronous `operation` with the captured dependencies.
    public func yield<R>(
      isolation: isolated (any Actor)? = #isolation,
      _ operation: () async throws -> R
    ) async rethrows -> R {
      try await DependencyValues.$_current.withValue(values) {
        try await operation()
      }
    }
  }
}

/// The dependency values a model was created with: those captured by its `@Dependency`
/// properties (and those of the values it holds one level down), or, if it has none, those in
/// force when it was returned from `withDependencies`. A model with neither gives the current
/// values.
func capturedDependencies(of model: Any) -> DependencyValues {
  var values: DependencyValues?
  func visit(_ subject: Any, depth: Int) {
    if let carrier = subject as? any _DependencyCarrier {
      if values == nil {
        values = carrier._capturedDependencies
      } else {
        values?.merge(carrier._capturedDependencies)
      }
      return
    }
    guard depth < 2 else { return }
    for child in Mirror(reflecting: subject).children {
      visit(child.value, depth: depth + 1)
    }
  }
  visit(model, depth: 0)
  if let values { return values }
  if type(of: model) is AnyClass,
    let values = DependencyObjects.shared.values(of: model as AnyObject)
  {
    return values
  }
  return DependencyValues._current
}

/// The dependencies each object was created with, for objects returned from `withDependencies`.
///
/// Entries hold the object weakly and are dropped once it is gone.
final class DependencyObjects: @unchecked Sendable {
  static let shared = DependencyObjects()

  private struct Entry {
    weak var object: AnyObject?
    var values: DependencyValues
  }

  private let lock = NSLock()
  private var entries: [ObjectIdentifier: Entry] = [:]
  private var insertionsSincePrune = 0

  /// Remembers the current dependencies for `result` if it is an object, and returns it.
  func remember<R>(_ result: R) -> R {
    guard R.self is AnyClass else { return result }
    let object = result as AnyObject
    let values = DependencyValues._current
    lock.lock()
    defer { lock.unlock() }
    entries[ObjectIdentifier(object)] = Entry(object: object, values: values)
    insertionsSincePrune += 1
    if insertionsSincePrune >= 64 {
      insertionsSincePrune = 0
      entries = entries.filter { $0.value.object != nil }
    }
    return result
  }

  /// The dependencies `object` was created with, if it was returned from `withDependencies`.
  func values(of object: AnyObject) -> DependencyValues? {
    lock.lock()
    defer { lock.unlock() }
    guard let entry = entries[ObjectIdentifier(object)], entry.object === object else { return nil }
    return entry.values
  }
}
