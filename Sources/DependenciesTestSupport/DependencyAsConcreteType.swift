public import Dependencies

extension Dependency {
  /// Reads a dependency whose value is an existential (`any Client`) as the concrete type a test
  /// or suite trait set it to, stopping the test process if it holds another type.
  ///
  /// ```swift
  /// @Suite(.dependencies { $0.client = MockClient() })
  /// struct FeatureTests {
  ///   @Test func records() {
  ///     @Dependency(\.client, as: MockClient.self) var client
  ///     #expect(client.recorded.isEmpty)
  ///   }
  /// }
  /// ```
  public init<Existential>(
    _ keyPath: any KeyPath<DependencyValues, Existential> & Sendable,
    as type: Value.Type,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(name: nil, fileID: fileID, filePath: filePath, line: line, column: column) {
      cast($0[keyPath: keyPath], to: Value.self, fix: "the dependency")
    }
  }

  /// Reads the dependency registered under a key type as the concrete type a test or suite trait
  /// set it to, stopping the test process if it holds another type.
  public init<Key: TestDependencyKey & SendableMetatype>(
    _ key: Key.Type,
    as type: Value.Type,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      name: "\(Key.self).self", fileID: fileID, filePath: filePath, line: line, column: column
    ) {
      cast($0[Key.self, function: "subscript(key:)"], to: Value.self, fix: "'\(Key.self).self'")
    }
  }
}

private func cast<Existential, Concrete>(
  _ value: Existential, to type: Concrete.Type, fix: String
) -> Concrete {
  guard let concrete = value as? Concrete else {
    fatalError(
      """
      The dependency holds a '\(Swift.type(of: value as Any))', not the '\(Concrete.self)' it is \
      read as. Set \(fix) to a '\(Concrete.self)' in the test's or suite's \
      '.dependencies { … }' trait.
      """)
  }
  return concrete
}
