import Architecture
import Clocks
import Testing

@MainActor
struct IfLetReducerTests {
  struct Modal: Reducer {
    struct State: Equatable { var text = "" }
    @CasePathable
    enum Action: Equatable { case typed(String), closeButtonTapped, startTimer, tick }
    @Dependency(\.continuousClock) var clock
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .typed(let text):
        state.text = text
        return .none
      case .closeButtonTapped:
        state.text = "closing"  // the child sees its own action before the parent nils it
        return .none
      case .startTimer:
        return .run { send in
          for await _ in clock.timer(interval: .seconds(1)) {
            await send(.tick)
          }
        }
      case .tick:
        state.text += "."
        return .none
      }
    }
  }

  struct Parent: Reducer {
    struct State: Equatable {
      var modal: Modal.State?
      var lastModalText: String?
    }
    @CasePathable
    enum Action: Equatable {
      case openButtonTapped
      case modal(Modal.Action)
      case dismiss
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .openButtonTapped:
          state.modal = Modal.State()
          return .none
        case .modal(.closeButtonTapped):
          state.lastModalText = state.modal?.text
          state.modal = nil
          return .none
        case .dismiss:
          state.modal = nil
          return .none
        case .modal:
          return .none
        }
      }
      .ifLet(\.modal, action: \.modal) { Modal() }
    }
  }

  @Test func childRunsBeforeParentWhenParentNilsChild() async {
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await store.send(.openButtonTapped) { $0.modal = Modal.State() }
    await store.send(.modal(.typed("Hi"))) { $0.modal?.text = "Hi" }
    await store.send(.modal(.closeButtonTapped)) {
      $0.modal = nil
      $0.lastModalText = "closing"
    }
  }

  @Test func childEffectsAreCancelledWhenChildGoesAway() async {
    let clock = TestClock()
    let store = TestStore(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.openButtonTapped) { $0.modal = Modal.State() }
    await store.send(.modal(.startTimer))
    await clock.advance(by: .seconds(1))
    await store.receive(\.modal.tick) { $0.modal?.text = "." }
    await store.send(.dismiss) { $0.modal = nil }
    // No effect is left running: the test store would fail at the end otherwise.
    await clock.advance(by: .seconds(5))
  }

  @Test func childActionWhileChildIsNilIsReported() async {
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await withKnownIssue {
      await store.send(.modal(.typed("Hi")))
    } matching: {
      $0.description.contains("An 'ifLet' at ArchitectureTests/IfLetReducerTests.swift:")
        && $0.description.contains("received a child action when child state was 'nil'")
        && $0.description.contains(".typed(\"Hi\")")
    }
  }

  @Test func parentThatNilsChildBeforeIfLetRunsIsReported() async {
    let store = TestStore(initialState: Parent.State(modal: Modal.State())) {
      // Wrong order: this reducer nils the child before the `ifLet` below runs.
      Reduce<Parent.State, Parent.Action> { state, _ in
        state.modal = nil
        return .none
      }
      EmptyReducer().ifLet(\.modal, action: \.modal) { Modal() }
    }
    await withKnownIssue {
      await store.send(.modal(.typed("x"))) { $0.modal = nil }
    } matching: {
      $0.description.contains("received a child action when child state was 'nil'")
        && $0.description.contains("so the child runs first")
    }
  }

  struct Sleeper: Reducer {
    struct State: Equatable, Identifiable { var id: Int }
    enum Action: Equatable { case start }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      .run { _ in try await Task.sleep(for: .seconds(60)) }
    }
  }

  struct Holder: Reducer {
    struct State: Equatable { var child: Sleeper.State? }
    @CasePathable
    enum Action: Equatable { case child(Sleeper.Action), replace }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if action == .replace { state.child = Sleeper.State(id: 2) }
        return .none
      }
      .ifLet(\.child, action: \.child) { Sleeper() }
    }
  }

  @Test func replacingChildWithAnotherIdentityCancelsItsEffects() async {
    let store = Store(initialState: Holder.State(child: Sleeper.State(id: 1))) { Holder() }
    let task = store.send(.child(.start))
    store.send(.replace)
    await task.finish()
    #expect(task.isCancelled)
  }
}

extension IfLetReducerTests {
  @Reducer
  struct Confirming {
    struct State: Equatable {
      var alert: AlertState<Alert>?
      var confirmed = 0
    }
    @CasePathable
    enum Alert: Equatable { case again, confirm }
    @CasePathable
    enum Action: Equatable {
      case alert(Alert)
      case ask
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .ask, .alert(.again):
          state.alert = AlertState { TextState("Sure?") }
          return .none
        case .alert(.confirm):
          state.confirmed += 1
          return .none
        }
      }
      .ifLet(\.alert, action: \.alert)
    }
  }

  @Test func anAlertInAPlainOptionalIsDismissedByItsActionUnlessReplaced() async {
    let store = TestStore(initialState: Confirming.State()) { Confirming() }
    await store.send(.ask) { $0.alert = AlertState { TextState("Sure?") } }
    // The parent showed a new alert in answer: it stays.
    await store.send(.alert(.again))
    await store.send(.alert(.confirm)) {
      $0.alert = nil
      $0.confirmed = 1
    }
  }
}
