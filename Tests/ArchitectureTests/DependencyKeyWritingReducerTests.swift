import Architecture
import Testing

@MainActor
struct DependencyKeyWritingReducerTests {
  struct Feature: Reducer {
    struct State: Equatable { var seen: [String] = [] }
    enum Action: Equatable { case read, readInEffect, record(String) }
    @Dependency(\.context) var context
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .read:
        state.seen.append("\(context)")
        return .none
      case .readInEffect:
        return .run { send in
          @Dependency(\.context) var context
          await send(.record("effect: \(context)"))
        }
      case .record(let entry):
        state.seen.append(entry)
        return .none
      }
    }
  }

  @Test func overrideReachesReducerAndEffect() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature().dependency(\.context, .preview)
    }
    await store.send(.read) { $0.seen = ["preview"] }
    await store.send(.readInEffect)
    await store.receive(.record("effect: preview")) { $0.seen.append("effect: preview") }
  }

  @Test func innermostOverrideWins() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature()
        .dependency(\.context, .live)
        .dependency(\.context, .preview)
    }
    await store.send(.read) { $0.seen = ["live"] }
  }

  @Test func innermostOverrideWinsAcrossReducers() async {
    let store = TestStore(initialState: Feature.State()) {
      CombineReducers {
        Feature().dependency(\.context, .live)
      }
      .dependency(\.context, .preview)
    }
    await store.send(.read) { $0.seen = ["live"] }
  }

  @Test func transformDependencyStartsFromTheValueAround() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature()
        .transformDependency(\.context) { context in
          context = context == .test ? .preview : .live
        }
    }
    await store.send(.read) { $0.seen = ["preview"] }
  }

  @Test func testStoreDependenciesReachTheEffect() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.context = .preview
    }
    await store.send(.readInEffect)
    await store.receive(.record("effect: preview")) { $0.seen = ["effect: preview"] }
  }
}
