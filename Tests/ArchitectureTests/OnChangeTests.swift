import Architecture
import Testing

@MainActor
struct OnChangeTests {
  struct Search: Reducer {
    struct State: Equatable {
      var query = ""
      var changes: [String] = []
    }
    enum Action: Equatable { case queryChanged(String), noop }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if case .queryChanged(let query) = action { state.query = query }
        return .none
      }
      .onChange(of: \.query) { oldValue, newValue in
        Reduce { state, _ in
          state.changes.append("\(oldValue)→\(newValue)")
          return .none
        }
      }
    }
  }

  @Test func runsOnlyWhenTheValueChanges() async {
    let store = TestStore(initialState: Search.State()) { Search() }
    await store.send(.queryChanged("a")) {
      $0.query = "a"
      $0.changes = ["→a"]
    }
    await store.send(.queryChanged("a"))
    await store.send(.noop)
    await store.send(.queryChanged("ab")) {
      $0.query = "ab"
      $0.changes = ["→a", "a→ab"]
    }
  }
}
