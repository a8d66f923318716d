@_spi(Internals) import Architecture
import Testing

@MainActor
struct StoreInternalsTests {
  @Reducer
  struct Chain {
    struct State: Equatable { var steps: [Int] = [] }
    enum Action: Equatable {
      case start
      case step(Int)
      case tap
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .start:
          return .run { send in await send(.step(1)) }
        case .step(let value):
          state.steps.append(value)
          return value < 3 ? .run { send in await send(.step(value + 1)) } : .none
        case .tap:
          state.steps.append(0)
          return .none
        }
      }
    }
  }

  @Test func theTaskBehindASendCoversTheEffectsItsActionsStarted() async {
    let store = Store(initialState: Chain.State()) { Chain() }
    await store.send(.start)?.value
    #expect(store.withState(\.steps) == [1, 2, 3])
  }

  @Test func aSendThatStartsNoEffectHasNoTask() {
    let store = Store(initialState: Chain.State()) { Chain() }
    let task: Task<Void, Never>? = store.send(.tap)
    #expect(task == nil)
    #expect(store.withState(\.steps) == [0])
  }

  @Test func withoutTheOptionalChainSendStillGivesAStoreTask() async {
    let store = Store(initialState: Chain.State()) { Chain() }
    let task = store.send(.start)
    await task.finish()
    #expect(store.withState(\.steps) == [1, 2, 3])
  }

  @Test func stackElementIDsCountFromZeroInEachContext() {
    @Dependency(\.stackElementID) var stackElementID
    #expect(stackElementID.peek().generation == 0)
    #expect(stackElementID.next() == 0)
    #expect(stackElementID.next().generation == 1)
    withDependencies {
      $0.stackElementID = StackElementIDGenerator.testValue
    } operation: {
      #expect(stackElementID.next() == 0)
    }
  }
}
