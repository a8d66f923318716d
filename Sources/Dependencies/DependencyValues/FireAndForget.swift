import IssueReporting

extension DependencyValues {
  /// Starts work that the caller does not wait for — live; in tests the work finishes before the
  /// call returns, so a test can assert on its effects right after.
  ///
  /// ```swift
  /// @Dependency(\.fireAndForget) var fireAndForget
  /// await fireAndForget {
  ///   try await analytics.track("recording-started")
  /// }
  /// ```
  ///
  /// Live and preview: an unstructured task. Test: the work runs to completion before the call
  /// returns, and an error it throws is reported as a test failure.
  public var fireAndForget: FireAndForget {
    self[FireAndForgetKey.self]
  }
}

/// Runs work without making the caller wait for it (except in tests). Call it like a function.
public struct FireAndForget: Sendable {
  /// Runs an operation with an optional task name and priority.
  public let operation:
    @Sendable (String?, TaskPriority?, @escaping @Sendable () async throws -> Void) async -> Void

  /// A fire-and-forget that runs operations with `operation`.
  public init(
    _ operation:
      @escaping @Sendable (String?, TaskPriority?, @escaping @Sendable () async throws -> Void)
      async -> Void
  ) {
    self.operation = operation
  }

  /// Starts `work`; live, without waiting for it.
  public func callAsFunction(
    name: String? = nil,
    priority: TaskPriority? = nil,
    @_inheritActorContext _ work: @escaping @Sendable () async throws -> Void
  ) async {
    await operation(name, priority, work)
  }
}

private enum FireAndForgetKey: DependencyKey {
  static let liveValue = FireAndForget { name, priority, work in
    Task(name: name, priority: priority) { try await work() }
  }
  static let testValue = FireAndForget { name, priority, work in
    await Task(name: name, priority: priority) {
      await withErrorReporting { try await work() }
    }
    .value
  }
}
