import Architecture
import Testing

@MainActor
struct StoreTests {
  struct Counter: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var log: [String] = []
    }
    enum Action: Equatable {
      case increment
      case incrementTwice
      case delayedIncrement
      case record(String)
      case reentrant
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .increment:
          state.count += 1
          return .none
        case .incrementTwice:
          return .merge(.send(.increment), .send(.increment))
        case .delayedIncrement:
          return .run { send in
            await Task.yield()
            await send(.increment)
          }
        case .record(let entry):
          state.log.append(entry)
          return .none
        case .reentrant:
          state.log.append("reentrant")
          return .concatenate(.send(.record("a")), .send(.record("b")))
        }
      }
    }
  }

  @Test func sendReducesImmediately() {
    let store = Store(initialState: Counter.State()) { Counter() }
    store.send(.increment)
    #expect(store.state.count == 1)
    #expect(store.withState(\.count) == 1)
  }

  @Test func sendEffectsAreProcessedBeforeSendReturns() {
    let store = Store(initialState: Counter.State()) { Counter() }
    let task = store.send(.incrementTwice)
    #expect(store.state.count == 2)
    #expect(!task.isCancelled)
  }

  @Test func synchronousActionsAreQueuedInOrder() {
    let store = Store(initialState: Counter.State()) { Counter() }
    store.send(.reentrant)
    #expect(store.state.log == ["reentrant", "a", "b"])
  }

  @Test func actionsFromEffectsAreProcessedInTheOrderSent() async {
    let store = Store(initialState: Counter.State()) {
      Reduce<Counter.State, Counter.Action> { state, action in
        switch action {
        case .delayedIncrement:
          return .run { send in
            for entry in ["one", "two", "three"] {
              await send(.record(entry))
            }
          }
        case .record(let entry):
          state.log.append(entry)
          return entry == "two" ? .send(.record("two and a half")) : .none
        default:
          return .none
        }
      }
    }
    await store.send(.delayedIncrement).finish()
    #expect(store.state.log == ["one", "two", "two and a half", "three"])
  }

  @Test func storeTaskFinishWaitsForEffects() async {
    let store = Store(initialState: Counter.State()) { Counter() }
    await store.send(.delayedIncrement).finish()
    #expect(store.state.count == 1)
  }

  @Test func storeTaskCancelStopsEffects() async {
    let store = Store(initialState: Counter.State()) {
      Reduce<Counter.State, Counter.Action> { state, action in
        switch action {
        case .delayedIncrement:
          return .run { send in
            try await Task.sleep(for: .seconds(60))
            await send(.increment)
          }
        case .increment:
          state.count += 1
          return .none
        default:
          return .none
        }
      }
    }
    let task = store.send(.delayedIncrement)
    task.cancel()
    await task.finish()
    #expect(task.isCancelled)
    #expect(store.state.count == 0)
  }

  @Test func statesStartWithCurrentStateAndYieldEachChange() async {
    let store = Store(initialState: Counter.State()) { Counter() }
    var iterator = store.states.makeAsyncIterator()
    store.send(.increment)
    store.send(.incrementTwice)
    #expect(await iterator.next()?.count == 0)
    #expect(await iterator.next()?.count == 1)
    #expect(await iterator.next()?.count == 3)
  }

  @Test func statesBufferingNewestKeepOnlyTheLatestStateForASlowObserver() async {
    let store = Store(initialState: Counter.State()) { Counter() }
    let states = store.states(bufferingPolicy: .bufferingNewest(1))
    store.send(.increment)
    store.send(.incrementTwice)
    store.send(.increment)
    var iterator = states.makeAsyncIterator()
    // The initial state and the changes in between were dropped; the newest is kept.
    #expect(await iterator.next()?.count == 4)
    store.send(.increment)
    #expect(await iterator.next()?.count == 5)
  }

  @Test func statesSupportManyObservers() async {
    let store = Store(initialState: Counter.State()) { Counter() }
    let first = store.states
    let second = store.states
    store.send(.increment)
    var firstIterator = first.makeAsyncIterator()
    var secondIterator = second.makeAsyncIterator()
    #expect(await firstIterator.next()?.count == 0)
    #expect(await firstIterator.next()?.count == 1)
    #expect(await secondIterator.next()?.count == 0)
    #expect(await secondIterator.next()?.count == 1)
  }

  @Test func statesEndWhenStoreIsReleased() async {
    var store: StoreOf<Counter>? = Store(initialState: Counter.State()) { Counter() }
    let states = store!.states
    store?.send(.increment)
    store = nil
    var counts: [Int] = []
    for await state in states {
      counts.append(state.count)
    }
    #expect(counts == [0, 1])
  }

  @Test func releasingStoreCancelsEffects() async {
    let started = AsyncStream<Void>.makeStream()
    let ended = AsyncStream<Bool>.makeStream()
    var store: Store<Int, Void>? = Store(initialState: 0) {
      Reduce { _, _ in
        .run { _ in
          started.continuation.yield()
          do {
            try await Task.sleep(for: .seconds(60))
            ended.continuation.yield(false)
          } catch {
            ended.continuation.yield(true)
          }
        }
      }
    }
    store?.send(())
    var startedIterator = started.stream.makeAsyncIterator()
    await startedIterator.next()
    store = nil
    var endedIterator = ended.stream.makeAsyncIterator()
    #expect(await endedIterator.next() == true)
  }

  @Test func scopedStoreReadsChildStateAndEmbedsActions() {
    let store = Store(initialState: Parent.State()) { Parent() }
    let child = store.scope(state: \.child, action: \.child)
    child.send(.increment)
    #expect(child.state.count == 1)
    #expect(store.state.child.count == 1)
  }

  @Test func scopedStoreStatesFollowChildState() async {
    let store = Store(initialState: Parent.State()) { Parent() }
    let child = store.scope(state: \.child, action: \.child)
    var iterator = child.states.makeAsyncIterator()
    child.send(.increment)
    #expect(await iterator.next()?.count == 0)
    #expect(await iterator.next()?.count == 1)
  }

  /// Logs the context the reducer sees, once for the action it is sent and once for the action
  /// its effect sends back (after checking the effect sees the same).
  struct ContextLog: Reducer {
    typealias State = [DependencyContext]
    typealias Action = Bool
    @Dependency(\.context) var context
    var body: some ReducerOf<Self> {
      Reduce { state, fromEffect in
        state.append(context)
        guard !fromEffect else { return .none }
        return .run { send in
          @Dependency(\.context) var context
          #expect(context == .preview)
          await send(true)
        }
      }
    }
  }

  @Test func storeDependenciesReachReducerAndEffects() async {
    let store = Store(initialState: ContextLog.State()) {
      ContextLog()
    } withDependencies: {
      $0.context = .preview
    }
    await store.send(false).finish()
    #expect(store.state == [.preview, .preview])
  }

  struct Parent: Reducer {
    struct State: Equatable, Sendable {
      var child = Counter.State()
    }
    @CasePathable
    enum Action: Equatable {
      case child(Counter.Action)
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .child(let action):
          var child = state.child
          let effect = Counter().reduce(into: &child, action: action)
          state.child = child
          return effect.map(Action.child)
        }
      }
    }
  }
}
