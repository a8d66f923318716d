import Dependencies
import Testing

struct EntryValue: Sendable, Equatable {
  var name: String
  static let live = EntryValue(name: "live")
  static let preview = EntryValue(name: "preview")
  static let test = EntryValue(name: "test")
}

extension DependencyValues {
  @DependencyEntry var entryOnlyDefault = EntryValue.test
  @DependencyEntry(liveValue: EntryValue.live, previewValue: EntryValue.preview)
  var entryAllValues = EntryValue.test
  @DependencyEntry("NamedEntryKey", liveValue: EntryValue.live)
  var entryTyped: EntryValue = .test
}

@Suite struct DependencyEntryTests {
  @Test func entryGivesEachContextItsValue() {
    for (context, expected) in [
      (DependencyContext.live, EntryValue.live), (.preview, .preview), (.test, .test),
    ] {
      withDependencies {
        $0.context = context
      } operation: {
        @Dependency(\.entryAllValues) var value
        #expect(value == expected)
      }
    }
  }

  @Test func theInitialValueServesEveryContextNotGiven() {
    for context in DependencyContext.allCases {
      withDependencies {
        $0.context = context
      } operation: {
        #expect(DependencyValues._current.entryOnlyDefault == .test)
      }
    }
  }

  @Test func entryCanBeOverriddenAndNamesItsKey() {
    withDependencies {
      $0.entryTyped = EntryValue(name: "override")
    } operation: {
      @Dependency(\.entryTyped) var value
      #expect(value.name == "override")
    }
    #expect(DependencyValues._current[DependencyValues.NamedEntryKey.self] == .test)
  }
}
