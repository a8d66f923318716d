// Only these two imports, as in a feature ported from TCA by changing its import: `URLSession`
// (FoundationNetworking on Linux) must be visible through `Architecture` alone.
import Architecture
import Testing

@MainActor
struct ExportsTests {
  /// Records which session `@Dependency(\.urlSession)` gave the reducer.
  @Reducer
  struct Loader {
    struct State: Equatable {
      var session: ObjectIdentifier?
    }
    enum Action: Equatable {
      case load
    }
    @Dependency(\.urlSession) var urlSession

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .load:
          state.session = ObjectIdentifier(urlSession)
          return .none
        }
      }
    }
  }

  @Test func urlSessionOverriddenOnAReducer() async {
    let session = URLSession(configuration: .ephemeral)
    let store = TestStore(initialState: Loader.State()) {
      Loader()
        .dependency(\.urlSession, session)
    }
    await store.send(.load) {
      $0.session = ObjectIdentifier(session)
    }
  }

  @Test func urlSessionOverriddenOnATestStore() async {
    let store = TestStore(initialState: Loader.State()) {
      Loader()
    }
    let session = URLSession(configuration: .ephemeral)
    store.dependencies.urlSession = session
    await store.send(.load) {
      $0.session = ObjectIdentifier(session)
    }
  }

  @Test func urlSessionOverriddenInATestStoresInitializer() async {
    let session = URLSession(configuration: .ephemeral)
    let store = TestStore(initialState: Loader.State()) {
      Loader()
    } withDependencies: {
      $0.urlSession = session
    }
    await store.send(.load) {
      $0.session = ObjectIdentifier(session)
    }
  }
}
