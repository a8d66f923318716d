import Dependencies
import DependenciesTestSupportInterface
import Testing

// `GreetingClient` is declared in an interface module with only `TestDependencyKey`; its
// `DependencyKey` conformance (live value) is in `DependenciesTestSupportLive`, which this test
// target links but never imports. `FarewellClient` has no live module at all.
@Suite struct InterfaceLiveSplitTests {
  @Test func liveValueFromALinkedModuleIsFoundAtRunTime() {
    withDependencies {
      $0.context = .live
    } operation: {
      @Dependency(\.greetingClient) var greetingClient
      #expect(greetingClient.greet("Ada") == "live hello, Ada")
    }
  }

  @Test func interfaceValuesStillServeTestAndPreview() {
    @Dependency(\.greetingClient) var greetingClient
    #expect(greetingClient.greet("Ada") == "test hello, Ada")
    withDependencies {
      $0.context = .preview
    } operation: {
      @Dependency(\.greetingClient) var greetingClient
      #expect(greetingClient.greet("Ada") == "preview hello, Ada")
    }
  }

  @Test func missingLiveModuleIsReportedWithHowToLinkIt() {
    withDependencies {
      $0.context = .live
    } operation: {
      @Dependency(\.farewellClient) var farewellClient
      var message: String?
      withKnownIssue {
        message = farewellClient.farewell()
      } matching: { issue in
        let text = issue.comments.map(\.rawValue).joined()
        return text.contains(#"@Dependency(\.farewellClient) has no live implementation"#)
          && text.contains("Key:   DependenciesTestSupportInterface.FarewellClient")
          && text.contains("Link the live module into the executable")
      }
      // It falls back to the preview value rather than crashing.
      #expect(message == "preview goodbye")
    }
  }
}
