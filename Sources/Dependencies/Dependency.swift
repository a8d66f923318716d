/// A property wrapper that reads a dependency from ``DependencyValues``.
///
/// ```swift
/// struct SpeechRecognition: Reducer {
///   @Dependency(\.speechClient) var speechClient
///   @Dependency(\.continuousClock) var clock
///   @Dependency(UUIDGenerator.self) var uuid   // a type that is its own key
/// }
/// ```
///
/// The wrapper captures the dependencies in force when its owner is created: an object made
/// inside `withDependencies(_:operation:)` keeps seeing those overrides when it is used
/// later, outside the scope, and in tasks it starts. Values overridden in the scope where the
/// property is *read* take precedence over the captured ones.
@propertyWrapper
public struct Dependency<Value>: Sendable {
  let initialValues: DependencyValues
  let read: @Sendable (DependencyValues) -> Value
  let access: DependencyAccess

  /// Reads the dependency at a key path of ``DependencyValues``.
  ///
  /// The file, line and column say where the wrapper is declared; reported issues point there.
  public init(
    _ keyPath: KeyPath<DependencyValues, Value> & Sendable,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(name: nil, fileID: fileID, filePath: filePath, line: line, column: column) {
      $0[keyPath: keyPath]
    }
  }

  /// Reads the dependency registered under a key type, such as a client that is its own key.
  public init<Key: TestDependencyKey & SendableMetatype>(
    _ key: Key.Type,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where Key.Value == Value {
    self.init(
      name: "\(Key.self).self", fileID: fileID, filePath: filePath, line: line, column: column
    ) {
      $0[Key.self, function: "subscript(key:)"]
    }
  }

  /// Reads the dependency with `read`, naming it `name` in reported issues (for wrappers defined
  /// by other modules of this package, such as `DependenciesTestSupport`).
  package init(
    name: String?,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt,
    read: @escaping @Sendable (DependencyValues) -> Value
  ) {
    self.initialValues = DependencyValues._current
    self.read = read
    self.access = DependencyAccess(
      explicitName: name, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The current value of the dependency.
  ///
  /// Values overridden where it is read win over the ones captured when the wrapper was created.
  /// If the value's default has to be created, it is created with these merged values as the
  /// current ones, so a default that reads other dependencies sees the same overrides.
  public var wrappedValue: Value {
    let current = DependencyValues._current
    var values =
      initialValues.storage.isEmpty && initialValues.cachedValues === current.cachedValues
      ? current : initialValues.merging(current)
    values.access = access
    return read(values)
  }
}

extension Dependency: _DependencyCarrier {
  var _capturedDependencies: DependencyValues { initialValues }
}

/// Something that captured dependency values when it was created.
protocol _DependencyCarrier {
  var _capturedDependencies: DependencyValues { get }
}
