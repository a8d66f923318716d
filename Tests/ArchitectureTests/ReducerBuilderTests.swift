import Architecture
import Testing

@MainActor
struct ReducerBuilderTests {
  typealias Log = Reduce<[String], Int>

  nonisolated static func append(_ entry: String) -> Log {
    Log { state, _ in
      state.append(entry)
      return .none
    }
  }

  struct Feature: Reducer {
    typealias State = [String]
    typealias Action = Int
    var flag: Bool
    var mode: Int
    var count: Int

    var body: some ReducerOf<Self> {
      ReducerBuilderTests.append("first")
      if flag {
        ReducerBuilderTests.append("if")
      }
      if flag {
        ReducerBuilderTests.append("then")
      } else {
        ReducerBuilderTests.append("else")
      }
      switch mode {
      case 0: ReducerBuilderTests.append("zero")
      case 1: ReducerBuilderTests.append("one")
      default: EmptyReducer()
      }
      for index in 0..<count {
        ReducerBuilderTests.append("for \(index)")
      }
      if #available(macOS 13, *) {
        ReducerBuilderTests.append("available")
      }
    }
  }

  @Test func runsReducersInOrderWithControlFlow() {
    let store = Store(initialState: [String]()) { Feature(flag: true, mode: 1, count: 2) }
    store.send(0)
    #expect(store.state == ["first", "if", "then", "one", "for 0", "for 1", "available"])
  }

  @Test func skipsBranchesNotTaken() {
    let store = Store(initialState: [String]()) { Feature(flag: false, mode: 7, count: 0) }
    store.send(0)
    #expect(store.state == ["first", "else", "available"])
  }

  @Test func mergesEffectsOfAllReducers() async {
    let store = Store(initialState: [String]()) {
      Reduce<[String], String> { state, action in
        state.append(action)
        return action == "go" ? .send("from first") : .none
      }
      Reduce<[String], String> { _, action in
        action == "go" ? .run { send in await send("from second") } : .none
      }
    }
    await store.send("go").finish()
    #expect(store.state == ["go", "from first", "from second"])
  }

  @Test func emptyBodyDoesNothing() {
    struct Empty: Reducer {
      typealias State = Int
      typealias Action = Void
      var body: some ReducerOf<Self> {}
    }
    let store = Store(initialState: 1) { Empty() }
    store.send(())
    #expect(store.state == 1)
  }

  @Test func existentialReducersComposeWhenWrappedInReduce() {
    let erased: any Reducer<[String], Int> = ReducerBuilderTests.append("erased")
    let store = Store(initialState: [String]()) {
      CombineReducers {
        Reduce(erased)
        ReducerBuilderTests.append("concrete")
      }
    }
    store.send(0)
    #expect(store.state == ["erased", "concrete"])
  }

  struct WithErased: Reducer {
    typealias State = [String]
    typealias Action = Int
    let erased: any Reducer<[String], Int>
    var body: some ReducerOf<Self> {
      erased
      ReducerBuilderTests.append("concrete")
    }
  }

  @Test func existentialReducersCanBeListedDirectly() {
    let store = Store(initialState: [String]()) {
      WithErased(erased: ReducerBuilderTests.append("erased"))
    }
    store.send(0)
    #expect(store.state == ["erased", "concrete"])
  }
}
