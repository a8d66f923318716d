import Architecture
import Testing

@MainActor
struct CancellationTests {
  enum CancelID { case timer }

  struct Timer: Reducer {
    struct State: Equatable { var ticks = 0 }
    enum Action { case start, startOver, stop, tick }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .start, .startOver:
          return .run { send in
            for _ in 0..<1000 {
              try await Task.sleep(for: .milliseconds(1))
              await send(.tick)
            }
          }
          .cancellable(id: CancelID.timer, cancelInFlight: action == .startOver)
        case .stop:
          return .cancel(id: CancelID.timer)
        case .tick:
          state.ticks += 1
          return .none
        }
      }
    }
  }

  @Test func cancelByIDStopsTheEffect() async {
    let store = Store(initialState: Timer.State()) { Timer() }
    let task = store.send(.start)
    store.send(.stop)
    await task.finish()
    let ticks = store.state.ticks
    try? await Task.sleep(for: .milliseconds(20))
    #expect(store.state.ticks == ticks)
  }

  @Test func cancelInFlightCancelsThePreviousEffect() async {
    let store = Store(initialState: Timer.State()) { Timer() }
    let first = store.send(.start)
    let second = store.send(.startOver)
    await first.finish()
    #expect(first.isCancelled)
    #expect(!second.isCancelled)
    second.cancel()
    await second.finish()
  }

  @Test func cancellationIDsAreScopedToTheirStore() async {
    let first = Store(initialState: Timer.State()) { Timer() }
    let second = Store(initialState: Timer.State()) { Timer() }
    let firstTask = first.send(.start)
    let secondTask = second.send(.start)
    first.send(.stop)
    await firstTask.finish()
    while second.state.ticks < 3 {
      await Task.yield()
    }
    second.send(.stop)
    await secondTask.finish()
    #expect(second.state.ticks >= 3)
  }

  @Test func cancellableNoneWithCancelInFlightCancels() async {
    let store = Store(initialState: Timer.State()) {
      Timer()
      Reduce<Timer.State, Timer.Action> { _, action in
        action == .stop ? Effect.none.cancellable(id: CancelID.timer, cancelInFlight: true) : .none
      }
    }
    let task = store.send(.start)
    store.send(.stop)
    await task.finish()
  }
}

@MainActor
struct TaskCancelByIDTests {
  enum CancelID { case stream }

  struct Feature: Reducer {
    struct State: Equatable {}
    enum Action { case start, stopFromEffect }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        return .run { _ in
          for await _ in AsyncStream<Never>(unfolding: { nil as Never? }) {}
          let stream = AsyncStream<Int> { _ in }
          for await _ in stream {}
        }
        .cancellable(id: CancelID.stream)
      case .stopFromEffect:
        return .run { _ in
          Task.cancel(id: CancelID.stream)
        }
      }
    }
  }

  @Test func taskCancelByIDInsideAnEffectCancelsThatID() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.start)
    await store.send(.stopFromEffect)
    // Fails with "still running" if the stream was not cancelled.
    await store.finish(timeout: .seconds(5))
  }
}
