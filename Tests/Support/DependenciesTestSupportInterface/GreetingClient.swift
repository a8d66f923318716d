import Dependencies

/// An interface-only client, as a feature module would see it. Its live value is added by
/// `DependenciesTestSupportLive`, which the tests link.
public struct GreetingClient: Sendable {
  public var greet: @Sendable (String) -> String
  public init(greet: @escaping @Sendable (String) -> String) { self.greet = greet }
}

extension GreetingClient: TestDependencyKey {
  public static let testValue = GreetingClient { "test hello, \($0)" }
  public static let previewValue = GreetingClient { "preview hello, \($0)" }
}

extension DependencyValues {
  public var greetingClient: GreetingClient {
    get { self[GreetingClient.self] }
    set { self[GreetingClient.self] = newValue }
  }
}

/// An interface-only client whose live module does not exist, so it is never linked.
public struct FarewellClient: Sendable {
  public var farewell: @Sendable () -> String
  public init(farewell: @escaping @Sendable () -> String) { self.farewell = farewell }
}

extension FarewellClient: TestDependencyKey {
  public static let testValue = FarewellClient { "test goodbye" }
  public static let previewValue = FarewellClient { "preview goodbye" }
}

extension DependencyValues {
  public var farewellClient: FarewellClient {
    get { self[FarewellClient.self] }
    set { self[FarewellClient.self] = newValue }
  }
}
