import Architecture
import Clocks
import Testing

@MainActor
struct MergeConcatenateTests {
  struct Feature: Reducer {
    struct State: Equatable { var log: [String] = [] }
    @CasePathable
    enum Action: Equatable { case mergeTapped, concatenateTapped, finished(String) }
    @Dependency(\.continuousClock) var clock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .mergeTapped:
        return .merge(delayed("slow", by: 2), delayed("fast", by: 1))
      case .concatenateTapped:
        return .concatenate(delayed("slow", by: 2), delayed("fast", by: 1))
      case .finished(let name):
        state.log.append(name)
        return .none
      }
    }

    func delayed(_ name: String, by seconds: Int) -> Effect<Action> {
      .run { send in
        try await clock.sleep(for: .seconds(seconds))
        await send(.finished(name))
      }
    }
  }

  func makeStore(clock: TestClock<Duration>) -> TestStoreOf<Feature> {
    TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.continuousClock = clock
    }
  }

  @Test func mergeRunsEffectsAtTheSameTime() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.mergeTapped)
    await clock.advance(by: .seconds(1))
    await store.receive(.finished("fast")) { $0.log = ["fast"] }
    await clock.advance(by: .seconds(1))
    await store.receive(.finished("slow")) { $0.log = ["fast", "slow"] }
  }

  @Test func concatenateRunsEffectsOneAfterAnother() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.concatenateTapped)
    await clock.advance(by: .seconds(1))
    await clock.advance(by: .seconds(1))
    await store.receive(.finished("slow")) { $0.log = ["slow"] }
    // "fast" starts only now, so it needs one more second.
    await clock.advance(by: .seconds(1))
    await store.receive(.finished("fast")) { $0.log = ["slow", "fast"] }
  }

  @Test func cancellingAConcatenationStopsTheRest() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    let task = await store.send(.concatenateTapped)
    await clock.advance(by: .seconds(2))
    await store.receive(.finished("slow")) { $0.log = ["slow"] }
    await task.cancel()
    await clock.advance(by: .seconds(5))
  }
}
