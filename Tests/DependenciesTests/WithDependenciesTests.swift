import Dependencies
import Foundation
import Testing

@Suite struct WithDependenciesTests {
  @Test func synchronousScopeOverridesAndRestores() {
    let inside = withDependencies {
      $0.number = 5
    } operation: {
      DependencyValues._current.number
    }
    #expect(inside == 5)
    #expect(DependencyValues._current.number == 3)
  }

  @Test func asynchronousScopeReachesChildTasks() async {
    let fromChild = await withDependencies {
      $0.number = 6
    } operation: {
      await Task { DependencyValues._current.number }.value
    }
    #expect(fromChild == 6)
  }

  @Test func nestedScopesLayerOverrides() {
    withDependencies {
      $0.number = 1
      $0.testOnly = "outer"
    } operation: {
      withDependencies {
        $0.number = 2
      } operation: {
        #expect(DependencyValues._current.number == 2)
        #expect(DependencyValues._current.testOnly == "outer")
      }
      #expect(DependencyValues._current.number == 1)
    }
  }

  @Test func childModelInheritsTheParentsDependencies() {
    let parent = withDependencies {
      $0.number = 11
    } operation: {
      Model()
    }
    let child = withDependencies(from: parent) { Model() }
    #expect(child.number == 11)
    let tweaked = withDependencies(from: parent) {
      $0.testOnly = "child"
    } operation: {
      (Model(), DependencyValues._current.testOnly)
    }
    #expect(tweaked.0.number == 11)
    #expect(tweaked.1 == "child")
  }

  @Test func childModelInheritsInAsyncScope() async {
    let parent = withDependencies {
      $0.number = 12
    } operation: {
      Model()
    }
    let child = await withDependencies(from: parent) { () async in Model() }
    #expect(child.number == 12)
  }

  @Test func escapedDependenciesReachAnEscapingClosure() async {
    let result = await withDependencies {
      $0.number = 21
    } operation: {
      await withCheckedContinuation { continuation in
        withEscapedDependencies { dependencies in
          Thread.detachNewThread {
            dependencies.yield {
              continuation.resume(returning: DependencyValues._current.number)
            }
          }
        }
      }
    }
    #expect(result == 21)
  }

  @Test func withoutEscapingADetachedThreadSeesTheDefault() async {
    let result = await withDependencies {
      $0.number = 21
    } operation: {
      await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          continuation.resume(returning: DependencyValues._current.number)
        }
      }
    }
    #expect(result == 3)
  }
}
