import Dependencies
import Testing

private struct PlainClient: Sendable, DependencyKey {
  var value: Int
  static let liveValue = PlainClient(value: 1)
}

extension DependencyValues {
  fileprivate var plainClient: PlainClient {
    get { self[PlainClient.self] }
    set { self[PlainClient.self] = newValue }
  }
}

@Suite struct IssueNameTests {
  // No `@Dependency(...)` on any source line here, so only the property's `#function` can name it.
  @Test func aReadWithoutAWrapperIsNamedByTheProperty() {
    withKnownIssue {
      _ = DependencyValues._current.plainClient
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.plainClient)"#)
    }
  }

  @Test func aWrapperWithAKeyTypeIsNamedByTheType() {
    let wrapper = Dependency(PlainClient.self)
    withKnownIssue {
      _ = wrapper.wrappedValue
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("@Dependency(PlainClient.self)")
    }
  }

  @Test func aWrapperReportsAtTheLineItWasCreatedOn() {
    let wrapper = Dependency(\.plainClient)
    let line = #line - 1
    withKnownIssue {
      _ = wrapper.wrappedValue
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.comments.map(\.rawValue).joined().contains(#"@Dependency(\.plainClient)"#)
    }
  }
}
