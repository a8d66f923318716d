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

  struct CaseInsensitiveSearch: Reducer {
    struct State: Equatable {
      var query = ""
      var searches = 0
    }
    enum Action: Equatable { case queryChanged(String) }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if case .queryChanged(let query) = action { state.query = query }
        return .none
      }
      .onChange(of: \.query, removeDuplicates: { $0.lowercased() == $1.lowercased() }) { _, _ in
        Reduce { state, _ in
          state.searches += 1
          return .none
        }
      }
    }
  }

  @Test func removeDuplicatesDecidesWhatCountsAsAChange() async {
    let store = TestStore(initialState: CaseInsensitiveSearch.State()) { CaseInsensitiveSearch() }
    await store.send(.queryChanged("a")) {
      $0.query = "a"
      $0.searches = 1
    }
    await store.send(.queryChanged("A")) {
      $0.query = "A"
    }
    await store.send(.queryChanged("b")) {
      $0.query = "b"
      $0.searches = 2
    }
  }
}
