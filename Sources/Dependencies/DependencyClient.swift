import IssueReporting

/// Gives a struct of closure endpoints (a dependency *client*) an initializer that takes every
/// endpoint, each defaulting to an *unimplemented* closure.
///
/// ```swift
/// @DependencyClient
/// struct SpeechClient: Sendable {
///   var requestAuthorization: @Sendable () async -> AuthorizationStatus = { .notDetermined }
///   var startTask: @Sendable (Request) async throws -> AsyncThrowingStream<Result, any Error>
///   var finishTask: @Sendable () async -> Void
/// }
///
/// extension SpeechClient: TestDependencyKey {
///   static let testValue = SpeechClient()   // every endpoint unimplemented
/// }
/// ```
///
/// A test overrides only the endpoints its story uses:
/// `$0.speechClient.requestAuthorization = { .authorized }`. Calling any other endpoint fails the
/// test with an issue naming it (`SpeechClient.startTask`), then the endpoint throws
/// ``UnimplementedEndpoint``, returns `nil` for an optional result, returns for `Void`, or runs
/// the default closure written on the property.
///
/// A non-throwing endpoint whose result is neither `Void` nor optional needs such a default
/// closure (any value of the type will do: it is only returned after the failure is reported);
/// the macro reports an error until it has one. Properties that are not closures become
/// parameters too, keeping their default when they have one.
///
/// An endpoint whose closure type names its parameters, `var fetch: (_ id: Int) async throws ->
/// User`, also gets a method that takes them as labels: `try await client.fetch(id: 1)`.
@attached(member, names: named(init), arbitrary)
public macro DependencyClient() =
  #externalMacro(module: "DependenciesMacros", type: "DependencyClientMacro")

/// The error an unimplemented throwing endpoint of a `@DependencyClient` throws after reporting
/// the issue.
public struct UnimplementedEndpoint: Error, Equatable, Sendable, CustomStringConvertible {
  /// The endpoint that was called, e.g. `SpeechClient.startTask`.
  public let endpoint: String

  /// An error for the named endpoint.
  public init(_ endpoint: String) {
    self.endpoint = endpoint
  }

  /// Says which endpoint was called without an implementation.
  public var description: String {
    "'\(endpoint)' is not implemented"
  }
}

/// Reports that an endpoint of a `@DependencyClient` was called without being overridden.
/// Called by the code the macro generates.
public func _reportUnimplementedEndpoint(_ endpoint: String) {
  reportIssue(
    """
    Unimplemented endpoint '\(endpoint)' was called. Override it for this test, e.g. in \
    'withDependencies', with a closure that gives what the test needs.
    """)
}

/// Makes one closure property of a struct default to an unimplemented closure that reports an
/// issue naming `Type.property` when called, and adds a method that takes the closure's named
/// parameters as argument labels (or is named `method`).
///
/// ```swift
/// struct Analytics {
///   @DependencyEndpoint var track: (_ event: String) -> Void
/// }
/// Analytics().track(event: "opened")   // fails the test: the endpoint is unimplemented
/// ```
///
/// `@DependencyClient` gives every endpoint of a client this default without the attribute.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: arbitrary)
public macro DependencyEndpoint(method: String = "") =
  #externalMacro(module: "DependenciesMacros", type: "DependencyEndpointMacro")
