import Architecture
import ConcurrencyExtras
import Testing

/// An effect's lifetime includes the effects started by the actions it sends back.
@MainActor
struct EffectLifetimeTests {
  struct Feature: Reducer {
    struct State: Equatable {
      var childStarted = false
      var childDone = false
    }
    enum Action: Equatable { case task, startChild, startLongChild, childDone }
    let childCancelled: LockIsolated<Bool>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .task:
        return .run { send in await send(.startLongChild) }
      case .startChild:
        state.childStarted = true
        return .run { send in
          for _ in 0..<50 { await Task.yield() }
          await send(.childDone)
        }
      case .startLongChild:
        state.childStarted = true
        let childCancelled = self.childCancelled
        return .run { _ in
          await withTaskCancellationHandler {
            for await _ in AsyncStream<Never>(unfolding: { await neverEnding() }) {}
          } onCancel: {
            childCancelled.setValue(true)
          }
        }
      case .childDone:
        state.childDone = true
        return .none
      }
    }
  }

  @Test func cancellingTheStoreTaskEndsEffectsStartedByActionsItsEffectSent() async {
    let cancelled = LockIsolated(false)
    let store = Store(initialState: Feature.State()) { Feature(childCancelled: cancelled) }
    let task = store.send(.task)
    for _ in 0..<1000 where !store.state.childStarted {
      await Task.yield()
    }
    #expect(store.state.childStarted)
    task.cancel()
    await task.finish()
    #expect(cancelled.value)
  }

  @Test func finishingTheStoreTaskWaitsForDescendantEffects() async {
    let store = Store(initialState: Feature.State()) {
      Reduce<Feature.State, Feature.Action> { state, action in
        if action == .task {
          return .run { send in await send(.startChild) }
        }
        return Feature(childCancelled: LockIsolated(false)).reduce(into: &state, action: action)
      }
    }
    await store.send(.task).finish()
    #expect(store.state.childDone)
  }

  @Test func testStoreTaskFinishWaitsForDescendants() async {
    let store = TestStore(initialState: Feature.State()) {
      Reduce<Feature.State, Feature.Action> { state, action in
        if action == .task {
          return .run { send in await send(.startChild) }
        }
        return Feature(childCancelled: LockIsolated(false)).reduce(into: &state, action: action)
      }
    }
    store.exhaustivity = .off
    await store.send(.task).finish()
    await store.skipReceivedActions()
    #expect(store.state.childDone)
  }
}

/// Suspends until the task is cancelled, then ends.
private func neverEnding() async -> Never? {
  let stream = AsyncStream<Never> { _ in }
  for await _ in stream {}
  return nil
}
