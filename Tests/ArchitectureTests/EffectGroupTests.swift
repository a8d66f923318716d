import ConcurrencyExtras
import Testing

@testable import Architecture

/// What a store task holds while its effect runs: the effects started by the actions the effect
/// sent back, only while they run.
@MainActor
struct EffectGroupTests {
  struct Session: Reducer {
    struct State: Equatable {
      var ticks = 0
      var done = 0
    }
    enum Action: Equatable { case start, tick, done, hold }
    let gate: AsyncStream<Void>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        // A session that sends a result after result for as long as it runs.
        let gate = self.gate
        return .run { send in
          for _ in 0..<200 { await send(.tick) }
          await send(.hold)
          for await _ in gate { return }
        }
      case .tick:
        state.ticks += 1
        // Each result starts a short effect of its own (dictation types the utterance).
        return .run { send in await send(.done) }
      case .done:
        state.done += 1
        return .none
      case .hold:
        // An effect still running when the session waits.
        let gate = self.gate
        return .run { _ in for await _ in gate { return } }
      }
    }
  }

  @Test func aLongEffectHoldsOnlyTheDescendantsStillRunning() async throws {
    let (gate, open) = AsyncStream<Void>.makeStream()
    let store = Store(initialState: Session.State()) { Session(gate: gate) }
    let task = store.send(.start)
    let group = try #require(task.group)
    // The 200 short effects end; the one waiting at the gate does not.
    for _ in 0..<10_000 where store.state.done < 200 || group.runningDescendants != 1 {
      await Task.yield()
    }
    #expect(store.state.ticks == 200)
    #expect(store.state.done == 200)
    #expect(group.runningDescendants == 1)
    #expect(!task.isCancelled)
    // The task still covers what runs: cancelling it ends the session and the held effect.
    task.cancel()
    await task.finish()
    #expect(group.runningDescendants == 0)
    open.finish()
  }

  @Test func finishingWaitsForADescendantThatJoinedWhileTheOwnEffectRan() async {
    let (gate, open) = AsyncStream<Void>.makeStream()
    let store = Store(initialState: Session.State()) { Session(gate: gate) }
    let task = store.send(.start)
    for _ in 0..<10_000 where store.state.done < 200 { await Task.yield() }
    let finished = LockIsolated(false)
    let waiting = Task {
      await task.finish()
      finished.setValue(true)
    }
    for _ in 0..<100 { await Task.yield() }
    #expect(!finished.value)
    // The gate lets the session's own effect and the held one end: then the task finishes.
    open.yield()
    open.yield()
    open.finish()
    await waiting.value
    #expect(finished.value)
  }
}
