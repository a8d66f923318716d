import Dependencies
import Foundation
import Testing

@Suite struct MainQueueDependencyTests {
  @Test func inTestsTheMainQueueReportsUseWithoutAnOverride() {
    @Dependency(\.mainQueue) var mainQueue
    withKnownIssue {
      mainQueue.schedule {}
    } matching: { issue in
      issue.description.contains(#"@Dependency(\.mainQueue)"#)
    }
  }

  @Test func anOverrideReplacesItForTheScope() {
    let scheduler = DispatchQueue.test
    withDependencies {
      $0.mainQueue = scheduler.eraseToAnyScheduler()
    } operation: {
      @Dependency(\.mainQueue) var mainQueue
      var ran = false
      mainQueue.schedule { ran = true }
      #expect(!ran)
      scheduler.advance()
      #expect(ran)
    }
  }

  @Test(arguments: [DependencyContext.live, .preview])
  func liveAndPreviewRunOnTheMainQueue(context: DependencyContext) async {
    let key = DispatchSpecificKey<String>()
    DispatchQueue.main.setSpecific(key: key, value: "main")
    defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
    let queue = await withDependencies {
      $0.context = context
    } operation: {
      @Dependency(\.mainQueue) var mainQueue
      return await withCheckedContinuation { continuation in
        mainQueue.schedule { continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
      }
    }
    #expect(queue == "main")
  }
}
