import Architecture
import Foundation
import Testing

/// The recursive case study: each row is a `Nested` feature with rows of its own.
struct Nested: Reducer {
  struct State: Equatable, Identifiable {
    let id: UUID
    var name = ""
    var rows: IdentifiedArrayOf<State> = []
  }

  @CasePathable
  indirect enum Action: Equatable {
    case addRowButtonTapped
    case nameChanged(String)
    case deleteRows(IndexSet)
    case rows(IdentifiedActionOf<Nested>)
  }

  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addRowButtonTapped:
        state.rows.append(State(id: uuid()))
        return .none
      case .nameChanged(let name):
        state.name = name
        return .none
      case .deleteRows(let offsets):
        state.rows.remove(atOffsets: offsets)
        return .none
      case .rows:
        return .none
      }
    }
    .forEach(\.rows, action: \.rows) {
      Nested()
    }
  }
}

@MainActor
struct NestedTests {
  @Test func rowsOfRowsGetIncrementingIDs() async {
    let store = TestStore(initialState: Nested.State(id: UUID(counting: 100))) {
      Nested()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    await store.send(.addRowButtonTapped) {
      $0.rows = [Nested.State(id: UUID(counting: 0))]
    }
    await store.send(.rows(.element(id: UUID(counting: 0), action: .addRowButtonTapped))) {
      $0.rows[id: UUID(counting: 0)]?.rows = [Nested.State(id: UUID(counting: 1))]
    }
    let grandchild = Nested.Action.rows(
      .element(
        id: UUID(counting: 0),
        action: .rows(
          .element(id: UUID(counting: 1), action: .nameChanged("Blob")))))
    await store.send(grandchild) {
      $0.rows[id: UUID(counting: 0)]?.rows[id: UUID(counting: 1)]?.name = "Blob"
    }
    await store.send(.rows(.element(id: UUID(counting: 0), action: .deleteRows([0])))) {
      $0.rows[id: UUID(counting: 0)]?.rows = []
    }
  }

  @Test func actionForADeletedGrandchildIsReported() async {
    let store = TestStore(initialState: Nested.State(id: UUID(counting: 100))) {
      Nested()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    await store.send(.addRowButtonTapped) {
      $0.rows = [Nested.State(id: UUID(counting: 0))]
    }
    await withKnownIssue {
      await store.send(
        .rows(
          .element(
            id: UUID(counting: 0),
            action: .rows(
              .element(id: UUID(counting: 9), action: .nameChanged("x"))))))
    } matching: {
      $0.description.contains("received an action for a missing element")
    }
  }
}
