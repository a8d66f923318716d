import Testing

@testable import Dependencies

@Suite struct DependencyContextTests {
  @Test func defaultsToTestUnderATestRunner() {
    #expect(DependencyContext.default == .test)
    #expect(DependencyContext.resolve(environment: [:], isTesting: true) == .test)
  }

  @Test func defaultsToLiveOutsideTests() {
    #expect(DependencyContext.resolve(environment: [:], isTesting: false) == .live)
  }

  @Test func environmentVariableForcesAContext() {
    let name = DependencyContext.environmentVariable
    #expect(name == "DEPENDENCIES_CONTEXT")
    #expect(DependencyContext.resolve(environment: [name: "preview"], isTesting: true) == .preview)
    #expect(DependencyContext.resolve(environment: [name: "LIVE"], isTesting: true) == .live)
    #expect(DependencyContext.resolve(environment: [name: "test"], isTesting: false) == .test)
    // Unknown names are ignored.
    #expect(DependencyContext.resolve(environment: [name: "staging"], isTesting: false) == .live)
  }

  @Test func contextIsReadableAsADependency() {
    @Dependency(\.context) var context
    #expect(context == .test)
    withDependencies {
      $0.context = .preview
    } operation: {
      @Dependency(\.context) var context
      #expect(context == .preview)
    }
  }
}
