import Dependencies
import Foundation
import Testing

private final class ParentWithDependency {
  @Dependency(\.uuid) var uuid
}

/// A parent that declares no `@Dependency` property at all.
private final class PlainParent {}

private struct Child {
  @Dependency(\.uuid) var uuid
}

@Suite struct WithDependenciesFromTests {
  @Test func valuesOfTheCurrentScopeWinOverTheParents() {
    let parent = withDependencies {
      $0.uuid = .constant(UUID(1))
    } operation: {
      ParentWithDependency()
    }
    let child = withDependencies {
      $0.uuid = .constant(UUID(2))
    } operation: {
      withDependencies(from: parent) { Child() }
    }
    #expect(child.uuid() == UUID(2))
  }

  @Test func valuesSetInTheUpdateClosureWinOverAll() {
    let parent = withDependencies {
      $0.uuid = .constant(UUID(1))
    } operation: {
      ParentWithDependency()
    }
    let child = withDependencies(from: parent) {
      $0.uuid = .constant(UUID(3))
    } operation: {
      Child()
    }
    #expect(child.uuid() == UUID(3))
  }

  @Test func childOfAParentWithoutDependencyPropertiesInheritsWhatTheParentWasCreatedWith() {
    let parent = withDependencies {
      $0.uuid = .constant(UUID(7))
    } operation: {
      PlainParent()
    }
    let child = withDependencies(from: parent) { Child() }
    #expect(child.uuid() == UUID(7))
  }

  @Test func childOfAPlainParentInheritsInAnAsyncScope() async {
    let parent = withDependencies {
      $0.uuid = .constant(UUID(8))
    } operation: {
      PlainParent()
    }
    let child = await withDependencies(from: parent) { () async in Child() }
    #expect(child.uuid() == UUID(8))
  }

  @Test func eachObjectIsTrackedSeparately() {
    let first = withDependencies {
      $0.uuid = .constant(UUID(1))
    } operation: {
      PlainParent()
    }
    let second = withDependencies {
      $0.uuid = .constant(UUID(2))
    } operation: {
      PlainParent()
    }
    #expect(withDependencies(from: first) { Child() }.uuid() == UUID(1))
    #expect(withDependencies(from: second) { Child() }.uuid() == UUID(2))
  }
}
