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
  let keyPath: (any AnyKeyPath & Sendable)?
  let name: String?
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// Reads the dependency at a key path of ``DependencyValues``.
  public init(
    _ keyPath: KeyPath<DependencyValues, Value> & Sendable,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.initialValues = DependencyValues._current
    self.read = { $0[keyPath: keyPath] }
    self.keyPath = keyPath
    self.name = nil
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// Reads the dependency registered under a key type, such as a client that is its own key.
  public init<Key: TestDependencyKey & SendableMetatype>(
    _ key: Key.Type,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where Key.Value == Value {
    self.initialValues = DependencyValues._current
    self.read = { $0[Key.self] }
    self.keyPath = nil
    self.name = "\(Key.self).self"
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// The current value of the dependency.
  public var wrappedValue: Value {
    let values = initialValues.merging(DependencyValues._current)
    let access = DependencyAccess(
      keyPath: keyPath, name: name, fileID: fileID, filePath: filePath, line: line,
      column: column)
    return DependencyValues.$currentAccess.withValue(access) {
      read(values)
    }
  }
}

extension Dependency: _DependencyCarrier {
  var _capturedDependencies: DependencyValues { initialValues }
}

/// Something that captured dependency values when it was created.
protocol _DependencyCarrier {
  var _capturedDependencies: DependencyValues { get }
}
