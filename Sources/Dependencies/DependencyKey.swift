/// A key for a dependency that has test (and optionally preview) values, but no live value.
///
/// Declare this conformance in a module that holds only a dependency's *interface*: the client
/// type, an unimplemented ``testValue`` and a ``previewValue``. A separate live module then adds
/// the ``DependencyKey`` conformance with the ``DependencyKey/liveValue``, so features can depend on
/// the interface without linking heavy live code:
///
/// ```swift
/// // SpeechClient module (interface)
/// extension SpeechClient: TestDependencyKey {
///   public static let testValue = SpeechClient(/* unimplemented endpoints */)
///   public static let previewValue = SpeechClient.lorem
/// }
///
/// // SpeechClientLive module
/// extension SpeechClient: DependencyKey {
///   public static let liveValue = SpeechClient(/* real endpoints */)
/// }
/// ```
///
/// When the live module is linked into the running program, ``DependencyValues`` finds the
/// `DependencyKey` conformance at run time and uses its live value in the live context.
public protocol TestDependencyKey<Value> {
  /// The type of the dependency value. A type can be its own key, so this defaults to `Self`.
  associatedtype Value: Sendable = Self

  /// The value used when the dependency is read in the ``DependencyContext/test`` context.
  ///
  /// Make it *unimplemented*: every endpoint reports a test failure that names itself, so a test
  /// must override exactly the endpoints its story uses.
  static var testValue: Value { get }

  /// The value used in the ``DependencyContext/preview`` context. Defaults to ``testValue``.
  static var previewValue: Value { get }
}

extension TestDependencyKey {
  /// By default a dependency's preview value is its test value.
  public static var previewValue: Value { Self.testValue }
}

/// A key for a dependency with a live value, used when running the real program.
///
/// ```swift
/// struct APIClient: Sendable { var fetch: @Sendable (Int) async throws -> String }
///
/// extension APIClient: DependencyKey {
///   static let liveValue = APIClient { id in try await download(id) }
///   static let testValue = APIClient { _ in unimplemented("APIClient.fetch", placeholder: "") }
/// }
///
/// extension DependencyValues {
///   var apiClient: APIClient {
///     get { self[APIClient.self] }
///     set { self[APIClient.self] = newValue }
///   }
/// }
/// ```
///
/// If a key gives no `testValue`, reading it in a test fails the test with a message that names
/// the dependency and says how to override it, then falls back to the preview value (by default
/// the live value). Writing one of its fields in `withDependencies` reports nothing.
public protocol DependencyKey<Value>: TestDependencyKey {
  /// The value used in the ``DependencyContext/live`` context.
  static var liveValue: Value { get }

  // The associated type and the requirements are repeated here so that Swift infers `Value`
  // from `liveValue` alone (it does not look through the refined protocol's requirements), and
  // so the defaults below are picked for `DependencyKey`s.
  associatedtype Value = Self
  static var testValue: Value { get }
  static var previewValue: Value { get }
}

extension DependencyKey {
  /// By default a live dependency's preview value is its live value.
  public static var previewValue: Value { Self.liveValue }

  /// By default reading a live dependency in a test fails the test with a message that names the
  /// dependency and how to fix it, and then returns ``previewValue``. The read that a write
  /// implies (`$0.client.endpoint = …` in `withDependencies`) reports nothing.
  public static var testValue: Value {
    if shouldReportUnimplemented {
      reportMissingTestValue(Self.self)
    }
    return Self.previewValue
  }
}

extension TestDependencyKey {
  /// Whether an unimplemented `testValue` should report its use as a test failure right now.
  ///
  /// It is `false` while `withDependencies` or `prepareDependencies` overrides values: there a
  /// read only happens because a field of the value is being written. A hand-written
  /// unimplemented value can check it before reporting:
  ///
  /// ```swift
  /// static var testValue: Client {
  ///   if shouldReportUnimplemented { reportIssue("Client is unimplemented") }
  ///   return Client(...)
  /// }
  /// ```
  public static var shouldReportUnimplemented: Bool {
    !DependencyValues.isSetting
  }
}
