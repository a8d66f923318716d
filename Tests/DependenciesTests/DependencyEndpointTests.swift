import Dependencies
import Testing

struct AnalyticsClient {
  @DependencyEndpoint var track: (_ event: String) -> Void
  @DependencyEndpoint(method: "count") var countEvents: () -> Int = { 0 }
}

@DependencyClient
struct ClientWithMarkedEndpoint {
  @DependencyEndpoint var load: (_ id: Int) throws -> String
}

@Suite struct DependencyEndpointTests {
  @Test func unsetEndpointReportsItsNameWhenCalled() {
    let client = AnalyticsClient()
    withKnownIssue {
      client.track(event: "opened")
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("'AnalyticsClient.track'")
    }
  }

  @Test func endpointWithADefaultReportsAndReturnsIt() {
    let client = AnalyticsClient()
    var count: Int?
    withKnownIssue {
      count = client.count()
    }
    #expect(count == 0)
  }

  @Test func anAssignedEndpointReportsNothing() {
    var tracked: [String] = []
    var client = AnalyticsClient()
    client.track = { tracked.append($0) }
    client.countEvents = { 1 }
    client.track(event: "a")
    #expect(client.count() == 1)
    client.countEvents = { 2 }
    #expect(client.count() == 2)
    #expect(tracked == ["a"])
  }

  @Test func insideADependencyClientTheEndpointGetsOneMethod() throws {
    let client = ClientWithMarkedEndpoint(load: { "user \($0)" })
    #expect(try client.load(id: 1) == "user 1")
    withKnownIssue {
      #expect(throws: UnimplementedEndpoint("ClientWithMarkedEndpoint.load")) {
        try ClientWithMarkedEndpoint().load(id: 2)
      }
    }
  }
}
