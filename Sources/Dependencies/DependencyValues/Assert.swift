import IssueReporting

extension DependencyValues {
  /// Checks a condition like Swift's `assert`, but in tests a failed check fails the test
  /// instead of stopping the process, so tests can cover the failure.
  ///
  /// ```swift
  /// @Dependency(\.assert) var assert
  /// assert(index >= 0, "Index must not be negative")
  /// ```
  ///
  /// Live and preview: `Swift.assert` (checked in debug builds of this module). Test: reports an
  /// issue when the condition is false.
  public var assert: AssertionEffect {
    self[AssertKey.self]
  }

  /// Reports a failure like Swift's `assertionFailure`; in tests it fails the test instead.
  public var assertionFailure: AssertionFailureEffect {
    AssertionFailureEffect(base: self[AssertKey.self])
  }

  /// Checks a condition like Swift's `precondition`; in tests a failed check fails the test
  /// instead of stopping the process.
  public var precondition: AssertionEffect {
    self[PreconditionKey.self]
  }
}

/// A condition check; call it like a function: `assert(condition, "message")`.
public struct AssertionEffect: Sendable {
  let check: @Sendable (() -> Bool, () -> String, StaticString, UInt) -> Void

  /// A check that runs `check` with the condition, the message, and the caller's location.
  public init(
    _ check: @escaping @Sendable (() -> Bool, () -> String, StaticString, UInt) -> Void
  ) {
    self.check = check
  }

  /// Checks `condition`, reporting `message` if it is false.
  public func callAsFunction(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line
  ) {
    withoutActuallyEscaping(condition) { condition in
      withoutActuallyEscaping(message) { message in
        check(condition, message, file, line)
      }
    }
  }
}

/// An unconditional failure; call it like a function: `assertionFailure("message")`.
public struct AssertionFailureEffect: Sendable {
  let base: AssertionEffect

  /// Reports `message` as a failure.
  public func callAsFunction(
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line
  ) {
    base(false, message(), file: file, line: line)
  }
}

private let reportingCheck = AssertionEffect { condition, message, file, line in
  guard !condition() else { return }
  let text = message()
  reportIssue(
    text.isEmpty ? "Assertion failed" : text, fileID: file, filePath: file, line: line,
    column: 1)
}

private enum AssertKey: DependencyKey {
  static let liveValue = AssertionEffect { condition, message, file, line in
    Swift.assert(condition(), message(), file: file, line: line)
  }
  static let testValue = reportingCheck
}

private enum PreconditionKey: DependencyKey {
  static let liveValue = AssertionEffect { condition, message, file, line in
    Swift.precondition(condition(), message(), file: file, line: line)
  }
  static let testValue = reportingCheck
}
