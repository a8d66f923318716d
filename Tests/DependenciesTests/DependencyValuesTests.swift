import Dependencies
import Testing

@Suite struct DependencyValuesTests {
  @Test func overriddenValueWinsOverTheDefault() {
    var values = DependencyValues()
    #expect(values.number == 3)
    values.number = 42
    #expect(values.number == 42)
    #expect(values.isOverridden(NumberKey.self))
  }

  @Test func testContextGivesTestValues() {
    let values = DependencyValues()
    #expect(values.context == .test)
    #expect(values.number == 3)
    #expect(values.livePreview == "test")
    #expect(values.testOnly == "test only")
  }

  @Test func previewContextGivesPreviewValuesWithTheirDefaults() {
    withDependencies {
      $0.context = .preview
    } operation: {
      let values = DependencyValues._current
      #expect(values.number == 2)
      // DependencyKey without a previewValue: the live value.
      #expect(values.livePreview == "live")
      // TestDependencyKey without a previewValue: the test value.
      #expect(values.testOnly == "test only")
    }
  }

  @Test func liveContextGivesLiveValues() {
    withDependencies {
      $0.context = .live
    } operation: {
      #expect(DependencyValues._current.number == 1)
      #expect(DependencyValues._current.livePreview == "live")
    }
  }

  @Test func aTypeCanBeItsOwnKey() {
    @Dependency(Greeter.self) var greeter
    #expect(greeter.greeting == "hi from the test value")
    withDependencies {
      $0[Greeter.self] = Greeter(greeting: "overridden")
    } operation: {
      @Dependency(Greeter.self) var greeter
      #expect(greeter.greeting == "overridden")
    }
  }

  @Test func mergingPrefersTheOtherValues() {
    var a = DependencyValues()
    a.number = 10
    a.testOnly = "a"
    var b = DependencyValues()
    b.number = 20
    let merged = a.merging(b)
    #expect(merged.number == 20)
    #expect(merged.testOnly == "a")
  }
}
