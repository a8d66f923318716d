import Foundation
import IssueReporting

/// The context a dependency is read in, which picks the default value of every key.
///
/// - ``live``: the real program; keys give their ``DependencyKey/liveValue``.
/// - ``preview``: a demo or preview; keys give their ``TestDependencyKey/previewValue``
///   (for example `transcribe --preview` speaks lorem ipsum instead of opening the microphone).
/// - ``test``: under XCTest or Swift Testing; keys give their ``TestDependencyKey/testValue``,
///   which should fail the test when used without an override.
///
/// The default is ``test`` when a test runner is detected and ``live`` otherwise. Set the
/// environment variable `DEPENDENCIES_CONTEXT` to `live`, `preview` or `test` to force one, or
/// switch a scope with `withDependencies(_:operation:)`:
///
/// ```swift
/// withDependencies {
///   $0.context = .preview
/// } operation: {
///   // every dependency read in here that is not overridden gives its preview value
/// }
/// ```
public enum DependencyContext: String, Sendable, Hashable, CaseIterable {
  /// The real program.
  case live
  /// A demo or preview: no real devices or services.
  case preview
  /// A test run.
  case test

  /// The name of the environment variable that forces the default context.
  public static let environmentVariable = "DEPENDENCIES_CONTEXT"

  /// The context used when no scope has set one: the environment variable
  /// ``environmentVariable`` if it names a context, else ``test`` under a test runner, else
  /// ``live``.
  public static var `default`: DependencyContext {
    defaultContext
  }
}

extension DependencyContext {
  /// The default context for an environment: the variable if it names a context, else `test`
  /// under a test runner, else `live`.
  static func resolve(environment: [String: String], isTesting: Bool) -> DependencyContext {
    if let name = environment[DependencyContext.environmentVariable],
      let context = DependencyContext(rawValue: name.lowercased())
    {
      return context
    }
    return isTesting ? .test : .live
  }
}

private let defaultContext = DependencyContext.resolve(
  environment: ProcessInfo.processInfo.environment, isTesting: isTesting)
