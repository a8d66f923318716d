import Architecture
import Foundation
import Testing

struct ThreadExecutorTests {
  /// An actor that runs on the executor it is given.
  actor Recorder {
    nonisolated let executor: ThreadExecutor
    var entries: [Int] = []
    var onExecutorThread: [Bool] = []

    init(executor: ThreadExecutor) {
      self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
      executor.asUnownedSerialExecutor()
    }

    /// Signals `holding`, then waits on the executor's thread, holding it, for `semaphore`.
    func wait(
      for semaphore: DispatchSemaphore, seconds: Double, holding: DispatchSemaphore
    ) -> Bool {
      holding.signal()
      return semaphore.wait(timeout: .now() + seconds) == .success
    }

    func signal(_ semaphore: DispatchSemaphore) {
      record(1)
      semaphore.signal()
    }

    func record(_ entry: Int) {
      entries.append(entry)
      onExecutorThread.append(executor.isCurrent && !Thread.isMainThread)
    }
  }

  @Test func anActorOnItRunsOnItsThreadOneCallAtATime() async {
    let executor = ThreadExecutor(name: "test.executor")
    let recorder = Recorder(executor: executor)
    await withTaskGroup(of: Void.self) { group in
      for entry in 0..<200 {
        group.addTask { await recorder.record(entry) }
      }
    }
    #expect(await recorder.entries.sorted() == Array(0..<200))
    #expect(await recorder.onExecutorThread == Array(repeating: true, count: 200))
    // Nowhere else is its thread's.
    #expect(!executor.isCurrent)
  }

  /// Two actors on one executor never run at once: the first waits, on the executor's thread,
  /// for the second to have run, which it cannot until the first lets the thread go.
  @Test func actorsOnOneExecutorTakeItsThreadInTurn() async {
    let executor = ThreadExecutor(name: "test.shared")
    let (first, second) = (Recorder(executor: executor), Recorder(executor: executor))
    let (holding, secondRan) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    async let waited = first.wait(for: secondRan, seconds: 0.5, holding: holding)
    // The second is called once the first holds the thread.
    await Task.detached { holding.wait() }.value
    async let other: Void = second.signal(secondRan)
    #expect(await waited == false)
    await other
    #expect(await second.entries == [1])
  }

  @Test func theSharedExecutorsAreOnePerCoreAndAtLeastTwo() {
    let shared = ThreadExecutor.shared
    #expect(shared.count == max(2, ProcessInfo.processInfo.activeProcessorCount))
    #expect(Set(shared.map(ObjectIdentifier.init)).count == shared.count)
  }

  /// Leases go to the executor the fewest leases hold: one per executor first, then the one a
  /// released lease gave back, where taking them in turn would pile a second on a busy one.
  @Test func aLeaseGoesToTheExecutorTheFewestLeasesHold() {
    let rotation = ThreadExecutor.Rotation()
    let shared = ThreadExecutor.shared
    let leases = shared.indices.map { _ in rotation.lease() }
    #expect(Set(leases.map { ObjectIdentifier($0.executor) }).count == shared.count)
    leases[1].release()
    // Releasing again gives back nothing more.
    leases[1].release()
    let next = rotation.lease()
    #expect(next.executor === leases[1].executor)
    // Every executor holds one lease again: the next goes elsewhere.
    let after = rotation.lease()
    #expect(after.executor !== next.executor)
    withExtendedLifetime((leases, next, after)) {}
  }

  @Test func aLeaseThatGoesGivesItsExecutorBack() {
    let rotation = ThreadExecutor.Rotation()
    var leases: [ThreadExecutor.Lease?] = ThreadExecutor.shared.indices.map { _ in
      rotation.lease()
    }
    let freed = leases[1]?.executor
    leases[1] = nil
    let next = rotation.lease()
    #expect(next.executor === freed)
    withExtendedLifetime((leases, next)) {}
  }

  /// A store runs its reducer on the executor it was given, and its effects send back there.
  @Test func anActorStoreReducesOnItsExecutor() async {
    let executor = ThreadExecutor(name: "test.store")
    let store = ActorStore(initialState: [Bool](), executor: executor) {
      Reduce<[Bool], Bool> { state, isFromEffect in
        state.append(executor.isCurrent)
        guard !isFromEffect else { return .none }
        return .run { send in await send(true) }
      }
    }
    await store.send(false).finish()
    #expect(await store.state == [true, true])
  }
}
