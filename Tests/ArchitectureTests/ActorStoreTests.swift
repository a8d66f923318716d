import Architecture
import ConcurrencyExtras
import Foundation
import Testing

struct ActorStoreTests {
  struct Counter: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var log: [String] = []
    }
    enum Action: Equatable, Sendable {
      case increment
      case incrementTwice
      case delayedIncrement
      case record(String)
      case concatenated
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
        case .concatenated:
          return .concatenate(
            .run { send in
              await Task.yield()
              await send(.record("first"))
            },
            .send(.record("second")),
            .run { send in await send(.record("third")) }
          )
        }
      }
    }
  }

  @Test func sendReducesOnTheStore() async {
    let store = ActorStore(initialState: Counter.State()) { Counter() }
    await store.send(.increment)
    await store.send(.incrementTwice)
    #expect(await store.state.count == 3)
    #expect(await store.withState(\.count) == 3)
  }

  @Test func effectsSendBackToTheStore() async {
    let store = ActorStore(initialState: Counter.State()) { Counter() }
    await store.send(.delayedIncrement).finish()
    #expect(await store.state.count == 1)
  }

  @Test func concatenatedEffectsRunInOrder() async {
    let store = ActorStore(initialState: Counter.State()) { Counter() }
    await store.send(.concatenated).finish()
    #expect(await store.state.log == ["first", "second", "third"])
  }

  @Test func mappedEffectsSendToTheStore() async {
    let store = ActorStore(initialState: [String]()) {
      Reduce<[String], String> { state, action in
        state.append(action)
        guard action == "start" else { return .none }
        return Effect<Int>.merge(.send(1), .run { send in await send(2) })
          .map { "mapped \($0)" }
      }
    }
    await store.send("start").finish()
    #expect(await store.state == ["start", "mapped 1", "mapped 2"])
  }

  /// The reducer and the effects' `send` work while the main actor is blocked: neither needs it.
  @MainActor
  @Test func reducerAndEffectsRunOffTheMainActor() async {
    let reduced = DispatchSemaphore(value: 0)
    let store = ActorStore(initialState: [String]()) {
      Reduce<[String], String> { state, action in
        state.append(action)
        if action == "from effect" { reduced.signal() }
        guard action == "start" else { return .none }
        return .run { send in await send("from effect") }
      }
    }
    Task.detached { await store.send("start") }
    // Blocks the main actor until the effect's action has been reduced.
    #expect(reduced.wait(timeout: .now() + 10) == .success)
    #expect(await store.state == ["start", "from effect"])
  }

  /// Two stores reduce at the same time: each reducer waits, inside `reduce`, for the other's to
  /// have started, which would never happen if they shared one actor.
  @Test func twoStoresReduceInParallel() async {
    let first = DispatchSemaphore(value: 0)
    let second = DispatchSemaphore(value: 0)
    func store(signal: DispatchSemaphore, wait: DispatchSemaphore) -> ActorStore<Bool, Void> {
      ActorStore(initialState: false) {
        Reduce { state, _ in
          signal.signal()
          state = wait.wait(timeout: .now() + 10) == .success
          return .none
        }
      }
    }
    let stores = [store(signal: first, wait: second), store(signal: second, wait: first)]
    await withTaskGroup(of: Void.self) { group in
      for store in stores {
        group.addTask { await store.send(()) }
      }
    }
    for store in stores {
      #expect(await store.state)
    }
  }

  @Test func storeTaskCancelStopsEffects() async {
    let store = ActorStore(initialState: 0) {
      Reduce<Int, Bool> { state, isLate in
        if isLate {
          state += 1
          return .none
        }
        return .run { send in
          try await Task.sleep(for: .seconds(60))
          await send(true)
        }
      }
    }
    let task = await store.send(false)
    task.cancel()
    await task.finish()
    #expect(task.isCancelled)
    #expect(await store.state == 0)
  }

  /// Cancellation ids belong to a store: cancelling one in one store leaves another store's
  /// effect under the same id running.
  @Test func cancellationIsPerStore() async {
    enum Action: Sendable {
      case start, stop, finished
    }
    enum ID { case timer }
    let (ticks, tick) = AsyncStream<Void>.makeStream()
    func makeStore() -> ActorStore<[String], Action> {
      ActorStore(initialState: [String]()) {
        Reduce<[String], Action> { state, action in
          state.append("\(action)")
          switch action {
          case .start:
            return .run { send in
              do {
                try await Task.sleep(for: .seconds(60))
              } catch {
                tick.yield()
                return
              }
              await send(.finished)
            }
            .cancellable(id: ID.timer)
          case .stop:
            return .cancel(id: ID.timer)
          case .finished:
            return .none
          }
        }
      }
    }
    let (one, other) = (makeStore(), makeStore())
    let oneTask = await one.send(.start)
    let otherTask = await other.send(.start)
    await one.send(.stop)
    await oneTask.finish()
    var iterator = ticks.makeAsyncIterator()
    await iterator.next()
    #expect(oneTask.isCancelled)
    #expect(!otherTask.isCancelled)
    await other.send(.stop)
    await otherTask.finish()
    #expect(await one.state == ["start", "stop"])
    #expect(await other.state == ["start", "stop"])
  }

  @Test func dependenciesReachReducerAndEffects() async {
    struct Feature: Reducer {
      typealias State = [DependencyContext]
      typealias Action = Bool
      @Dependency(\.context) var context
      var body: some ReducerOf<Self> {
        Reduce { state, fromEffect in
          state.append(context)
          guard !fromEffect else { return .none }
          return .run { send in
            @Dependency(\.context) var context
            await send(context == .preview)
          }
        }
      }
    }
    let store = ActorStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.context = .preview
    }
    await store.send(false).finish()
    #expect(await store.state == [.preview, .preview])
  }

  @Test func statesStartWithCurrentStateAndYieldEachChange() async {
    let store = ActorStore(initialState: Counter.State()) { Counter() }
    var iterator = await store.states.makeAsyncIterator()
    await store.send(.increment)
    await store.send(.incrementTwice)
    #expect(await iterator.next()?.count == 0)
    #expect(await iterator.next()?.count == 1)
    #expect(await iterator.next()?.count == 3)
  }

  @Test func statesBufferingNewestKeepOnlyTheLatestState() async {
    let store = ActorStore(initialState: Counter.State()) { Counter() }
    let states = await store.states(bufferingPolicy: .bufferingNewest(1))
    await store.send(.increment)
    await store.send(.incrementTwice)
    var iterator = states.makeAsyncIterator()
    #expect(await iterator.next()?.count == 3)
    await store.send(.increment)
    #expect(await iterator.next()?.count == 4)
  }

  @Test func statesEndAndEffectsAreCancelledWhenTheStoreIsReleased() async {
    let started = AsyncStream<Void>.makeStream()
    let ended = AsyncStream<Bool>.makeStream()
    var store: ActorStore<Int, Void>? = ActorStore(initialState: 0) {
      Reduce { state, _ in
        state += 1
        return .run { _ in
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
    let states = await store!.states
    await store?.send(())
    var startedIterator = started.stream.makeAsyncIterator()
    await startedIterator.next()
    store = nil
    var endedIterator = ended.stream.makeAsyncIterator()
    #expect(await endedIterator.next() == true)
    var counts: [Int] = []
    for await state in states {
      counts.append(state)
    }
    #expect(counts == [0, 1])
  }
}
