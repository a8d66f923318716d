import Architecture
import Testing

@MainActor
struct ThrottleTests {
  enum CancelID { case throttle }

  @Reducer
  struct Feature {
    struct State: Equatable {
      var count = 0
    }
    enum Action: Equatable {
      case tap(Int)
      case runTap(Int)
      case throttled(Int)
    }
    let latest: Bool
    @Dependency(\.mainQueue) var mainQueue

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .tap(let value):
          return .send(.throttled(value))
            .throttle(id: CancelID.throttle, for: .seconds(1), scheduler: mainQueue, latest: latest)
        case .runTap(let value):
          return .run { send in await send(.throttled(value)) }
            .throttle(id: CancelID.throttle, for: .seconds(1), scheduler: mainQueue, latest: latest)
        case .throttled(let value):
          state.count = value
          return .none
        }
      }
    }
  }

  func makeStore(latest: Bool, mainQueue: TestSchedulerOf<DispatchQueue>) -> TestStoreOf<Feature> {
    TestStore(initialState: Feature.State()) {
      Feature(latest: latest)
    } withDependencies: {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
    }
  }

  @Test func theFirstActionArrivesWhenTheSchedulerRuns() async {
    let mainQueue = DispatchQueue.test
    let store = makeStore(latest: true, mainQueue: mainQueue)
    await store.send(.tap(1))
    await mainQueue.advance()
    await store.receive(.throttled(1)) { $0.count = 1 }
  }

  @Test func latestSendsTheNewestActionOnceTheIntervalHasPassed() async {
    let mainQueue = DispatchQueue.test
    let store = makeStore(latest: true, mainQueue: mainQueue)
    await store.send(.tap(1))
    await mainQueue.advance()
    await store.receive(.throttled(1)) { $0.count = 1 }

    await store.send(.tap(2))
    await mainQueue.advance(by: .seconds(0.25))
    await store.send(.tap(3))
    await mainQueue.advance(by: .seconds(0.25))
    await store.send(.tap(4))
    await mainQueue.advance(by: .seconds(0.25))
    // 0.75 s after the first: held back.
    #expect(store.state.count == 1)
    await store.send(.tap(5))
    await mainQueue.advance(by: .seconds(0.25))
    await store.receive(.throttled(5)) { $0.count = 5 }
  }

  @Test func firstSendsTheOldestActionHeldBackOnceTheIntervalHasPassed() async {
    let mainQueue = DispatchQueue.test
    let store = makeStore(latest: false, mainQueue: mainQueue)
    await store.send(.tap(1))
    await mainQueue.advance()
    await store.receive(.throttled(1)) { $0.count = 1 }

    await store.send(.tap(2))
    await mainQueue.advance(by: .seconds(0.25))
    await store.send(.tap(3))
    await mainQueue.advance(by: .seconds(0.25))
    await store.send(.tap(4))
    await mainQueue.advance(by: .seconds(0.25))
    await store.send(.tap(5))
    await mainQueue.advance(by: .seconds(0.25))
    await store.receive(.throttled(2)) { $0.count = 2 }
  }

  @Test func aHeldBackActionIsSentWhenTheIntervalEndsWithoutANewerOne() async {
    let mainQueue = DispatchQueue.test
    let store = makeStore(latest: true, mainQueue: mainQueue)
    await store.send(.runTap(1))
    await mainQueue.advance()
    await store.receive(.throttled(1)) { $0.count = 1 }
    await store.send(.runTap(2))
    await mainQueue.advance(by: .milliseconds(999))
    #expect(store.state.count == 1)
    await mainQueue.advance(by: .milliseconds(1))
    await store.receive(.throttled(2)) { $0.count = 2 }
  }

  @Test func anActionAfterTheIntervalGoesStraightThrough() async {
    let mainQueue = DispatchQueue.test
    let store = makeStore(latest: true, mainQueue: mainQueue)
    await store.send(.tap(1))
    await mainQueue.advance()
    await store.receive(.throttled(1)) { $0.count = 1 }
    await mainQueue.advance(by: .seconds(1))
    await store.send(.tap(2))
    await mainQueue.advance()
    await store.receive(.throttled(2)) { $0.count = 2 }
  }

  @Test func eachStoreThrottlesItsOwnIDs() async {
    let mainQueue = DispatchQueue.test
    let first = makeStore(latest: true, mainQueue: mainQueue)
    let second = makeStore(latest: true, mainQueue: mainQueue)
    await first.send(.tap(1))
    await mainQueue.advance()
    await first.receive(.throttled(1)) { $0.count = 1 }
    // The same id in another store has not sent anything yet, so its first action goes through.
    await second.send(.tap(2))
    await mainQueue.advance()
    await second.receive(.throttled(2)) { $0.count = 2 }
  }
}
