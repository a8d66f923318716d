public import Dependencies
public import Testing

/// A Swift Testing trait that runs a test, or every test of a suite, with overridden
/// dependencies. Create it with `.dependencies`, `.dependencies { }` or `.dependency(_:_:)`.
///
/// Each test case — each argument of a parameterized test too — starts from fresh default values,
/// so values cached by one test never leak into another. Traits on a suite apply to its tests,
/// and a test's own traits are applied after its suite's.
public struct DependenciesTrait: TestTrait, SuiteTrait, TestScoping {
  let updateValues: @Sendable (inout DependencyValues) async throws -> Void

  /// Whether the scope being provided is the outermost one, which starts from fresh values.
  @TaskLocal static var isOutermost = true

  /// The trait applies to every test inside a suite it is attached to.
  public var isRecursive: Bool { true }

  /// Runs `function` with fresh default values (in the outermost scope) and the overrides.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withDependencies {
      if Self.isOutermost {
        $0 = DependencyValues()
      }
      try await updateValues(&$0)
    } operation: {
      try await Self.$isOutermost.withValue(false) {
        try await function()
      }
    }
  }
}

extension Trait where Self == DependenciesTrait {
  /// Runs the test with fresh default dependency values, for example for each argument of a
  /// parameterized test:
  ///
  /// ```swift
  /// @Test(.dependencies, arguments: [1, 2, 3])
  /// func countsFromOne(_ argument: Int) { ... }
  /// ```
  public static var dependencies: Self {
    Self { _ in }
  }

  /// Runs the test with the dependencies overridden in `updateValues`.
  ///
  /// ```swift
  /// @Test(.dependencies {
  ///   $0.uuid = .incrementing
  ///   $0.date.now = Date(timeIntervalSince1970: 0)
  /// })
  /// func createsItem() { ... }
  /// ```
  public static func dependencies(
    _ updateValues: @escaping @Sendable (inout DependencyValues) async throws -> Void
  ) -> Self {
    Self(updateValues: updateValues)
  }

  /// Runs the test with the dependency at `keyPath` set to `value`, evaluated for each test.
  ///
  /// ```swift
  /// @Test(.dependency(\.uuid, .incrementing))
  /// func createsItem() { ... }
  /// ```
  public static func dependency<Value>(
    _ keyPath: any WritableKeyPath<DependencyValues, Value> & Sendable,
    _ value: @autoclosure @escaping @Sendable () throws -> Value
  ) -> Self {
    Self { $0[keyPath: keyPath] = try value() }
  }

  /// Runs the test with a dependency that is its own key set to `value`.
  ///
  /// ```swift
  /// @Test(.dependency(APIClient(fetch: { _ in "" })))
  /// func loads() { ... }
  /// ```
  public static func dependency<Value: TestDependencyKey>(
    _ value: @autoclosure @escaping @Sendable () throws -> Value
  ) -> Self where Value == Value.Value {
    Self { $0[Value.self] = try value() }
  }
}
