import Architecture
import Testing

@MainActor
struct DebounceTests {
  enum CancelID { case debounce }

  @Reducer
  struct Feature {
    struct State: Equatable {
      var received: [Int] = []
      var started = 0
    }
    enum Action: Equatable {
      case cancel
      case changed(Int)
      case debounced(Int)
      case runChanged(Int)
      case started
    }
    @Dependency(\.mainQueue) var mainQueue

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .cancel:
          return .cancel(id: CancelID.debounce)
        case .changed(let value):
          return .send(.debounced(value))
            .debounce(id: CancelID.debounce, for: 1, scheduler: mainQueue)
        case .debounced(let value):
          state.received.append(value)
          return .none
        case .runChanged(let value):
          return .run { send in
            await send(.started)
            await send(.debounced(value))
          }
          .debounce(id: CancelID.debounce, for: .milliseconds(500), scheduler: mainQueue)
        case .started:
          state.started += 1
          return .none
        }
      }
    }
  }

  @Test func onlyTheLastEffectRunsOnceTheDueTimeHasPassedWithoutAnother() async {
    let mainQueue = DispatchQueue.test
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
    }
    await store.send(.changed(1))
    await mainQueue.advance(by: 0.5)
    await store.send(.changed(2))
    await mainQueue.advance(by: 0.5)
    await store.send(.changed(3))
    await mainQueue.advance(by: 0.5)
    // Nothing has been due yet: each change restarted the wait.
    await mainQueue.advance(by: 0.5)
    await store.receive(.debounced(3)) { $0.received = [3] }
    await mainQueue.run()
  }

  @Test func aDebouncedRunEffectDoesNotStartBeforeItsTime() async {
    let mainQueue = DispatchQueue.test
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
    }
    await store.send(.runChanged(1))
    await mainQueue.advance(by: .milliseconds(499))
    // The effect's work has not begun, so it has sent nothing: the next step would fail on an
    // unreceived `.started` otherwise.
    await store.send(.runChanged(2))
    await mainQueue.advance(by: .milliseconds(500))
    await store.receive(.started) { $0.started = 1 }
    await store.receive(.debounced(2)) { $0.received = [2] }
  }

  @Test func cancellingTheIDStopsAWaitingEffect() async {
    let mainQueue = DispatchQueue.test
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
    }
    await store.send(.changed(1))
    await store.send(.cancel)
    await mainQueue.run()
  }

  @Test func debouncingNothingIsNothing() async {
    let mainQueue = DispatchQueue.test
    let effect = Effect<Int>.none.debounce(id: CancelID.debounce, for: 1, scheduler: mainQueue)
    let store = Store(initialState: 0) {
      Reduce<Int, Int> { _, _ in effect }
    }
    // `.none` debounced stays `.none`: it neither waits nor cancels anything.
    let task = store.send(0)
    #expect(!task.isCancelled)
    await task.finish()
  }

  @Test func anImmediateSchedulerDebouncesWithoutWaiting() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.mainQueue = .immediate
    }
    await store.send(.changed(7))
    await store.receive(.debounced(7)) { $0.received = [7] }
  }
}
