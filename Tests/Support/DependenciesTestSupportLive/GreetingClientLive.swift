import Dependencies
import DependenciesTestSupportInterface

extension GreetingClient: DependencyKey {
  public static let liveValue = GreetingClient { "live hello, \($0)" }
}
