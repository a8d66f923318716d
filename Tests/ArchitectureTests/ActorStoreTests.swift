import Architecture
import ConcurrencyExtras
import Foundation
import Testing

struct ActorStoreTests {
  /// The counter that ``StoreTests`` runs in a ``Store``.
  typealias Counter = StoreTests.Counter

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

  @Test func concatenatedEffectsRunOneAfterAnother() async {
    let store = ActorStore(initialState: [Int]()) {
      Reduce<[Int], Int> { state, number in
        state.append(number)
        guard number == 0 else { return .none }
        return .concatenate(
          (1...3).map { number in
            .run { send in
              await Task.yield()
              await send(number)
            }
          })
      }
    }
    await store.send(0).finish()
    #expect(await store.state == [0, 1, 2, 3])
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

  /// Two stores on two executors reduce at the same time: each reducer waits, inside `reduce`,
  /// for the other's to have started, which would never happen if they shared one thread.
  @Test func twoStoresReduceInParallel() async {
    let first = DispatchSemaphore(value: 0)
    let second = DispatchSemaphore(value: 0)
    let executors = ThreadExecutor.shared
    func store(signal: DispatchSemaphore, wait: DispatchSemaphore) -> ActorStore<Bool, Void> {
      ActorStore(initialState: false, executor: executors[signal === first ? 0 : 1]) {
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
    let store = ActorStore(initialState: StoreTests.ContextLog.State()) {
      StoreTests.ContextLog()
    } withDependencies: {
      $0.context = .preview
    }
    await store.send(false).finish()
    #expect(await store.state == [.preview, .preview])
  }

  /// A presented child's effect dismisses it through the store's actor: `await dismiss()` sends
  /// the dismissal there, and the parent sees it while the child is still present.
  @Test func aPresentedChildDismissesItselfThroughTheStore() async {
    typealias Parent = PresentationReducerTests.Parent
    let store = ActorStore(initialState: Parent.State()) { Parent() }
    await store.send(.presentTimer(id: 7))
    await store.send(.timer(.presented(.closeButtonTapped))).finish()
    #expect(await store.withState { $0.timer == nil })
    #expect(await store.withState(\.dismissalsSeen) == [7])
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
