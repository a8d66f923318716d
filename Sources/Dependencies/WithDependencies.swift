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
  try updateValuesForOperation(&values)
  return try DependencyValues.$_current.withValue(values) {
    try operation()
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
  try await updateValuesForOperation(&values)
  return try await DependencyValues.$_current.withValue(values) {
    try await operation()
  }
}

/// Runs an operation with the dependencies that `model` captured when it was created, plus
/// further overrides — so a child model made by a parent inherits the parent's dependencies.
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

/// Runs an operation with the dependencies that `model` captured, plus the overrides made in
/// `updateValuesForOperation`.
@discardableResult
public func withDependencies<Model, R>(
  from model: Model,
  _ updateValuesForOperation: (inout DependencyValues) throws -> Void,
  operation: () throws -> R
) rethrows -> R {
  var values = DependencyValues._current.merging(capturedDependencies(of: model))
  try updateValuesForOperation(&values)
  return try DependencyValues.$_current.withValue(values) {
    try operation()
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
  var values = DependencyValues._current.merging(capturedDependencies(of: model))
  try await updateValuesForOperation(&values)
  return try await DependencyValues.$_current.withValue(values) {
    try await operation()
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

/// The dependency values captured by the `@Dependency` properties of a model (and of the models
/// it holds one level down), merged.
func capturedDependencies(of model: Any) -> DependencyValues {
  var values = DependencyValues()
  func visit(_ subject: Any, depth: Int) {
    if let carrier = subject as? any _DependencyCarrier {
      values.merge(carrier._capturedDependencies)
      return
    }
    guard depth < 2 else { return }
    for child in Mirror(reflecting: subject).children {
      visit(child.value, depth: depth + 1)
    }
  }
  visit(model, depth: 0)
  return values
}
