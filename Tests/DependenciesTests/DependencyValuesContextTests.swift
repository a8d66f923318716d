import Dependencies
import DependenciesTestSupport
import Foundation
import Testing

private struct ContextValue: Sendable, Equatable, DependencyKey {
  var name: String
  static let liveValue = ContextValue(name: "live")
  static let previewValue = ContextValue(name: "preview")
  static let testValue = ContextValue(name: "test")
}

private protocol Salutation: Sendable { func greet() -> String }
private struct EnglishGreeter: Salutation { func greet() -> String { "hello" } }
private struct GermanGreeter: Salutation { func greet() -> String { "hallo" } }

private enum SalutationKey: TestDependencyKey {
  static var testValue: any Salutation { EnglishGreeter() }
}

extension DependencyValues {
  fileprivate var salutation: any Salutation {
    get { self[SalutationKey.self] }
    set { self[SalutationKey.self] = newValue }
  }
}

/// A test value written by hand that checks `shouldReportUnimplemented`.
private struct HandWrittenClient: TestDependencyKey {
  var value: Int
  static var testValue: HandWrittenClient {
    if shouldReportUnimplemented {
      Issue.record("HandWrittenClient is unimplemented")
    }
    return HandWrittenClient(value: 0)
  }
}

extension DependencyValues {
  fileprivate var handWritten: HandWrittenClient {
    get { self[HandWrittenClient.self] }
    set { self[HandWrittenClient.self] = newValue }
  }
}

@Suite struct DependencyValuesContextTests {
  @Test func staticValuesSelectTheirContext() {
    #expect(DependencyValues.live[ContextValue.self].name == "live")
    #expect(DependencyValues.preview[ContextValue.self].name == "preview")
    #expect(DependencyValues.test[ContextValue.self].name == "test")
  }

  @Test func prepareDependenciesCanSetTheContext() {
    prepareDependencies { $0.context = .live }
    @Dependency(\.context) var context
    @Dependency(ContextValue.self) var value
    #expect(context == .live)
    #expect(value.name == "live")
  }

  @Test func shouldReportUnimplementedIsFalseWhileWriting() {
    withDependencies {
      $0.handWritten.value = 5
    } operation: {
      @Dependency(\.handWritten) var handWritten
      #expect(handWritten.value == 5)
    }
  }

  @Test func preferredLocalesCanBeSet() {
    withDependencies {
      $0.preferredLocales = [Locale(identifier: "de_DE"), Locale(identifier: "en_GB")]
    } operation: {
      @Dependency(\.preferredLocales) var preferredLocales
      #expect(preferredLocales.map(\.identifier) == ["de_DE", "en_GB"])
    }
  }

  @Test(.dependencies { $0.salutation = GermanGreeter() })
  func existentialIsReadAsTheConcreteTypeTheTraitSet() {
    @Dependency(\.salutation, as: GermanGreeter.self) var salutation
    @Dependency(SalutationKey.self, as: GermanGreeter.self) var byKey
    #expect(salutation.greet() == "hallo")
    #expect(byKey.greet() == "hallo")
  }

  @Test func readingAsTheWrongConcreteTypeStopsTheProcess() async {
    await #expect(processExitsWith: .failure) {
      @Dependency(\.salutation, as: GermanGreeter.self) var salutation
      _ = salutation.greet()
    }
  }
}
