import Architecture
import Clocks
import Testing

/// Every way a `TestStore` can fail a test, and what its message says.
@MainActor
struct TestStoreFailureTests {
  struct Feature: Reducer {
    struct State: Equatable {
      var count = 0
    }
    @CasePathable
    enum Action: Equatable {
      case increment
      case noop
      case startEffect
      case startSlowEffect
      case response(Int)
      case other
    }
    @Dependency(\.continuousClock) var clock

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .increment:
          state.count += 1
          return .none
        case .noop, .other:
          return .none
        case .startEffect:
          return .send(.response(42))
        case .startSlowEffect:
          return .run { send in
            try await clock.sleep(for: .seconds(10))
            await send(.response(1))
          }
        case .response(let value):
          state.count = value
          return .none
        }
      }
    }
  }

  func makeStore(clock: TestClock<Duration> = TestClock()) -> TestStoreOf<Feature> {
    TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.continuousClock = clock
    }
  }

  @Test func stateMismatchShowsDiffAtTheSendLine() async {
    let store = makeStore()
    let sendLine = #line + 2
    await withKnownIssue {
      await store.send(.increment) { $0.count = 2 }
    } matching: {
      $0.description.contains("A state change does not match expectation")
        && $0.description.contains("− TestStoreFailureTests.Feature.State(count: 2)")
        && $0.description.contains("+ TestStoreFailureTests.Feature.State(count: 1)")
        && $0.description.contains("(Expected: −, Actual: +)")
        && $0.sourceLocation?.line == sendLine
    }
  }

  @Test func unassertedStateChangeFails() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.increment)
    } matching: {
      $0.description.contains("State was not expected to change, but a change occurred")
        && $0.description.contains("add a trailing closure")
    }
  }

  @Test func closureThatChangesNothingFails() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.noop) { $0.count = 0 }
    } matching: {
      $0.description.contains("Expected state to change, but no change occurred")
    }
  }

  @Test func unreceivedActionsAreListedAtTheEnd() async {
    await withKnownIssue {
      let store = makeStore()
      await store.send(.startEffect)
    } matching: {
      $0.description.contains("The store received 1 unexpected action by the end of this test")
        && $0.description.contains(".response(42)")
    }
  }

  @Test func runningEffectAtTheEndNamesItsAction() async {
    await withKnownIssue {
      let store = makeStore()
      await store.send(.startSlowEffect)
    } matching: {
      $0.description.contains("An effect returned for this action is still running")
        && $0.description.contains("Sent action:")
        && $0.description.contains(".startSlowEffect")
    }
  }

  @Test func sendingBeforeHandlingReceivedActionsFailsAndKeepsTheQueue() async {
    let store = makeStore()
    await store.send(.startEffect)
    await withKnownIssue {
      await store.send(.noop)
    } matching: {
      $0.description.contains("Must handle 1 received action before sending an action")
        && $0.description.contains(".response(42)")
    }
    // The unhandled action is still there to receive (its state change already counted as the
    // starting point of the failed send), and nothing else fails.
    await store.receive(.response(42))
  }

  @Test func finishFailsWithUnassertedReceivedActions() async {
    let store = makeStore()
    await store.send(.startEffect)
    await withKnownIssue {
      await store.finish()
    } matching: {
      $0.description.contains("1 unexpected action")
        && $0.description.contains(".response(42)")
    }
    await store.skipReceivedActions()
  }

  @Test func receiveWithNoEffectRunningFailsAtOnce() async {
    let store = makeStore()
    let start = ContinuousClock.now
    await withKnownIssue {
      await store.receive(\.response)
    } matching: {
      $0.description.contains(
        "Expected to receive an action of the expected case (a case of 'Action' carrying 'Int')")
        && $0.description.contains("No effect is running")
    }
    #expect(ContinuousClock.now - start < .milliseconds(500))
  }

  @Test func receiveTimeoutNamesTheRunningEffects() async {
    let store = makeStore()
    await store.send(.startSlowEffect)
    await withKnownIssue {
      await store.receive(.response(1), timeout: .milliseconds(50))
    } matching: {
      $0.description.contains(".response(1), but received none")
        && $0.description.contains("1 effect was still running after waiting 0.05 seconds")
        && $0.description.contains(".startSlowEffect")
        && $0.description.contains("advance it")
    }
    await store.skipInFlightEffects()
  }

  @Test func receivedActionThatDoesNotMatchShowsADiff() async {
    let store = makeStore()
    await store.send(.startEffect)
    await withKnownIssue {
      await store.receive(.response(7)) { $0.count = 7 }
    } matching: {
      $0.description.contains("Received an action that does not match the expectation")
        && $0.description.contains("− TestStoreFailureTests.Feature.Action.response(7)")
        && $0.description.contains("+ TestStoreFailureTests.Feature.Action.response(42)")
        && $0.description.contains("(Expected: −, Received: +)")
    }
  }

  @Test func receivedActionOfAnotherCaseFails() async {
    let store = makeStore()
    await store.send(.startEffect)
    await withKnownIssue {
      await store.receive(\.other)
    } matching: {
      $0.description.contains("Received an action that does not match the expectation")
        && $0.description.contains(".response(42)")
        && $0.description.contains("Expected to receive an action of the expected case")
    }
  }

  @Test func receivedValueThatDoesNotMatchShowsADiff() async {
    let store = makeStore()
    await store.send(.startEffect)
    await withKnownIssue {
      await store.receive(\.response, 41) { $0.count = 41 }
    } matching: {
      $0.description.contains("Received an action that does not match the expectation")
        && $0.description.contains("− 41")
        && $0.description.contains("+ 42")
    }
  }

  @Test func finishTimeoutListsTheRunningEffects() async {
    let store = makeStore()
    await store.send(.startSlowEffect)
    await withKnownIssue {
      await store.finish(timeout: .milliseconds(50))
    } matching: {
      $0.description.contains("Expected effects to finish, but 1 is still running after")
        && $0.description.contains(".startSlowEffect")
    }
  }

  @Test func testStoreTaskFinishTimeoutFails() async {
    let store = makeStore()
    let task = await store.send(.startSlowEffect)
    await withKnownIssue {
      await task.finish(timeout: .milliseconds(50))
    } matching: {
      $0.description.contains("Expected the task to finish, but it is still running after")
    }
    await task.cancel()
  }

  @Test func skippingNothingFailsWhenStrict() async {
    let store = makeStore()
    await withKnownIssue {
      await store.skipReceivedActions()
      await store.skipInFlightEffects()
    } matching: {
      $0.description.contains("There were no received actions to skip")
        || $0.description.contains("There were no in-flight effects to skip")
    }
    await store.skipReceivedActions(strict: false)
    await store.skipInFlightEffects(strict: false)
  }

  @Test func nonExhaustiveMismatchStillFails() async {
    let store = makeStore()
    store.exhaustivity = .off
    await withKnownIssue {
      await store.send(.increment) { $0.count = 5 }
    } matching: {
      $0.description.contains("A state change does not match expectation")
        && $0.description.contains("(count: 5)")
    }
  }

  @Test func nonExhaustiveReceiveListsWhatDidNotMatch() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(.startEffect)
    await withKnownIssue {
      await store.receive(\.other)
    } matching: {
      $0.description.contains("Received, and not matching:")
        && $0.description.contains(".response(42)")
    }
  }

  @Test func assertClosureThatThrowsFails() async {
    struct Oops: Error {}
    let store = makeStore()
    await withKnownIssue {
      await store.send(.increment) { _ in throw Oops() }
    } matching: {
      $0.description.contains("The 'assert' closure threw an error")
    }
  }

  @Test func finishWithANanosecondTimeoutReportsARunningEffect() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.startSlowEffect).finish(timeout: 10_000_000)
    } matching: {
      $0.description.contains("still running after 0.01 seconds")
    }
    await withKnownIssue {
      await store.finish(timeout: 10_000_000)
    } matching: {
      $0.description.contains("Expected effects to finish")
    }
  }
}
