// A search feature written as TCA 1.x's case studies write one before clocks: it debounces the
// query on `\.mainQueue` and its test drives `DispatchQueue.test`. Ported from TCA by changing
// `import ComposableArchitecture` to `import Architecture`, and nothing else.
import Architecture
import Testing

@DependencyClient
struct SearchClient: Sendable {
  var search: @Sendable (_ query: String) async throws -> [String]
}

extension SearchClient: TestDependencyKey {
  static let testValue = SearchClient()
}

extension DependencyValues {
  var searchClient: SearchClient {
    get { self[SearchClient.self] }
    set { self[SearchClient.self] = newValue }
  }
}

@Reducer
struct Search {
  @ObservableState
  struct State: Equatable {
    var results: [String] = []
    var searchQuery = ""
  }

  enum Action {
    case searchQueryChanged(String)
    case searchQueryChangeDebounced
    case searchResponse(Result<[String], any Error>)
  }

  @Dependency(\.mainQueue) var mainQueue
  @Dependency(\.searchClient) var searchClient
  private enum CancelID { case search }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .searchQueryChanged(let query):
        state.searchQuery = query
        guard !query.isEmpty else {
          state.results = []
          return .cancel(id: CancelID.search)
        }
        return .send(.searchQueryChangeDebounced)
          .debounce(id: CancelID.search, for: 0.3, scheduler: self.mainQueue)

      case .searchQueryChangeDebounced:
        return .run { [query = state.searchQuery] send in
          await send(.searchResponse(Result { try await self.searchClient.search(query) }))
        }
        .cancellable(id: CancelID.search)

      case .searchResponse(.failure):
        state.results = []
        return .none

      case .searchResponse(.success(let results)):
        state.results = results
        return .none
      }
    }
  }
}

@MainActor
struct DebouncedSearchTests {
  @Test func searchRunsOnceTypingPausesForTheDebounceTime() async {
    let mainQueue = DispatchQueue.test
    let store = TestStore(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
      $0.searchClient.search = { query in ["\(query)penhagen", "\(query)logne"] }
    }

    await store.send(.searchQueryChanged("C")) {
      $0.searchQuery = "C"
    }
    await mainQueue.advance(by: 0.2)
    await store.send(.searchQueryChanged("Co")) {
      $0.searchQuery = "Co"
    }
    await mainQueue.advance(by: 0.3)
    await store.receive(\.searchQueryChangeDebounced)
    await store.receive(\.searchResponse.success) {
      $0.results = ["Copenhagen", "Cologne"]
    }
  }

  @Test func clearingTheQueryCancelsTheSearchInFlight() async {
    let mainQueue = DispatchQueue.test
    let store = TestStore(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.mainQueue = mainQueue.eraseToAnyScheduler()
    }

    await store.send(.searchQueryChanged("C")) {
      $0.searchQuery = "C"
    }
    await mainQueue.advance(by: 0.2)
    await store.send(.searchQueryChanged("")) {
      $0.searchQuery = ""
    }
    await mainQueue.run()
  }

  @Test func aFailedSearchClearsTheResults() async {
    struct SearchFailed: Error {}
    let store = TestStore(initialState: Search.State(results: ["Old"])) {
      Search()
    } withDependencies: {
      $0.mainQueue = .immediate
      $0.searchClient.search = { _ in throw SearchFailed() }
    }

    await store.send(.searchQueryChanged("C")) {
      $0.searchQuery = "C"
    }
    await store.receive(\.searchQueryChangeDebounced)
    await store.receive(\.searchResponse.failure) {
      $0.results = []
    }
  }

  @Test func withoutAnOverrideTheMainQueueFailsTheTest() async {
    let store = TestStore(initialState: Search.State()) {
      Search()
    } withDependencies: {
      $0.searchClient.search = { _ in [] }
    }
    await withKnownIssue {
      await store.send(.searchQueryChanged("C")) {
        $0.searchQuery = "C"
      }
      await store.receive(\.searchQueryChangeDebounced)
      await store.receive(\.searchResponse.success)
    }
  }
}
