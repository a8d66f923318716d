import Dependencies
import Foundation
import Testing

@Suite struct DependencyTests {
  @Test func readsByKeyPathAndByType() {
    withDependencies {
      $0.number = 7
      $0[Greeter.self] = Greeter(greeting: "hello")
    } operation: {
      @Dependency(\.number) var number
      @Dependency(Greeter.self) var greeter
      #expect(number == 7)
      #expect(greeter.greeting == "hello")
    }
  }

  @Test func objectKeepsTheOverridesOfTheScopeThatCreatedIt() async {
    let model = withDependencies {
      $0.number = 99
      $0.uuid = .incrementing
    } operation: {
      Model()
    }
    // Outside the scope, later:
    #expect(model.number == 99)
    #expect(model.uuid() == UUID(counting: 0))
    #expect(model.uuid() == UUID(counting: 1))
    // And in a task the object starts:
    #expect(await model.numberFromTask() == 99)
  }

  @Test func overridesWhereThePropertyIsReadTakePrecedence() {
    let model = withDependencies {
      $0.number = 1
    } operation: {
      Model()
    }
    withDependencies {
      $0.number = 2
    } operation: {
      #expect(model.number == 2)
    }
    #expect(model.number == 1)
  }

  @Test func objectCreatedOutsideAnyScopeSeesTheDefault() {
    let model = Model()
    #expect(model.number == 3)
  }
}
