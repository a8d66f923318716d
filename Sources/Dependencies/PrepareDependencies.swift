import Foundation

/// Sets the default value of dependencies once, at the start of a program, for every later read
/// that does not override them.
///
/// Unlike `withDependencies(_:operation:)`, which overrides dependencies for one scope,
/// `prepareDependencies` changes the defaults themselves, so code that runs outside any scope (a
/// command-line tool's entry point, a server's startup) sees the prepared values:
///
/// ```swift
/// @main struct Tool {
///   static func main() async {
///     prepareDependencies {
///       $0.uuid = .incrementing
///       $0.date.now = Date(timeIntervalSince1970: 0)
///     }
///     // ...
///   }
/// }
/// ```
///
/// Prepare each dependency once, before anything reads it: preparing a dependency that was already
/// read (or prepared by an earlier call) reports an issue and keeps the existing value. In a test,
/// the prepared values are the defaults of the running test only.
@discardableResult
public func prepareDependencies<R>(
  _ updateValues: (inout DependencyValues) throws -> R
) rethrows -> R {
  var values = DependencyValues._current
  return try DependencyValues.$preparationID.withValue(UUID()) {
    try DependencyValues.$isSetting.withValue(true) {
      try updateValues(&values)
    }
  }
}
