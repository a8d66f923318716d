import Architecture
import Clocks
import Foundation
import Testing

@MainActor
struct EnumReducerTests {
  @Reducer
  struct Counter {
    struct State: Equatable, Codable, Hashable, Sendable {
      var count = 0
    }
    @CasePathable
    enum Action: Equatable, Hashable, Sendable {
      case increment
      case startTimer
    }
    @Dependency(\.continuousClock) var clock
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .increment:
          state.count += 1
          return .none
        case .startTimer:
          return .run { send in
            for await _ in clock.timer(interval: .seconds(1)) {
              await send(.increment)
            }
          }
        }
      }
    }
  }

  @Reducer
  struct Greeter {
    let greeting: String
    struct State: Equatable, Codable, Hashable, Sendable {
      var text = ""
    }
    @CasePathable
    enum Action: Equatable, Hashable, Sendable { case greet }
    var body: some ReducerOf<Self> {
      Reduce { state, _ in
        state.text = greeting
        return .none
      }
    }
  }

  @Reducer
  enum Destination {
    case counter(Counter)
    case greeter(Greeter = Greeter(greeting: "Hello"))
    @ReducerCaseIgnored
    case banner(String)
    case empty
    #if os(Linux) || os(macOS)
      case other(Counter)
    #else
      case unused(Counter)
    #endif
  }

  struct Banner<Action>: Equatable, _EphemeralState {
    var text: String
  }

  @Reducer
  enum AlertingDestination {
    case counter(Counter)
    case alert(AlertState<Alert>)
    @ReducerCaseEphemeral
    case banner(Banner<BannerAction>)
    @CasePathable
    enum BannerAction: Equatable { case tapped }
    @CasePathable
    enum Alert: Equatable { case confirm }
  }

  @Reducer
  struct AlertingParent {
    struct State: Equatable {
      @PresentationState var destination: AlertingDestination.State?
      var confirmed = false
    }
    @CasePathable
    enum Action: Equatable {
      case destination(PresentationAction<AlertingDestination.Action>)
      case showAlert
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .showAlert:
          state.destination = .alert(Self.alert)
          return .none
        case .destination(.presented(.alert(.confirm))):
          state.confirmed = true
          return .none
        case .destination:
          return .none
        }
      }
      .ifLet(\.$destination, action: \.destination)
    }
    static let alert = AlertState<AlertingDestination.Alert> {
      TextState("Delete?")
    } actions: {
      ButtonState(role: .destructive, action: .confirm) { TextState("Delete") }
    }
  }

  @Reducer
  struct Parent {
    struct State: Equatable {
      @PresentationState var destination: Destination.State?
    }
    @CasePathable
    enum Action: Equatable {
      case destination(PresentationAction<Destination.Action>)
      case show(Destination.State)
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if case .show(let destination) = action {
          state.destination = destination
        }
        return .none
      }
      .ifLet(\.$destination, action: \.destination)
    }
  }

  @Test func eachCaseRunsItsReducer() async {
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await store.send(.show(.counter(Counter.State()))) {
      $0.destination = .counter(Counter.State())
    }
    await store.send(\.destination.counter.increment) {
      $0.destination = .counter(Counter.State(count: 1))
    }
    await store.send(.show(.greeter(Greeter.State()))) {
      $0.destination = .greeter(Greeter.State())
    }
    // The case's default value is the reducer that runs.
    await store.send(\.destination.greeter.greet) {
      $0.$destination[case: \.greeter]?.text = "Hello"
    }
    await store.send(.show(.other(Counter.State()))) {
      $0.destination = .other(Counter.State())
    }
    await store.send(\.destination.other.increment) {
      $0.$destination[case: \.other]?.count = 1
    }
  }

  @Test func switchingToAnotherCaseCancelsTheFirstCasesEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.show(.counter(Counter.State()))) {
      $0.destination = .counter(Counter.State())
    }
    await store.send(\.destination.counter.startTimer)
    await clock.advance(by: .seconds(1))
    await store.receive(\.destination.counter.increment) {
      $0.destination = .counter(Counter.State(count: 1))
    }
    // Another case with the same kind of state is another presentation: the timer ends.
    await store.send(.show(.other(Counter.State()))) {
      $0.destination = .other(Counter.State())
    }
    await clock.advance(by: .seconds(5))
  }

  @Test func ignoredAndEmptyCasesHoldStateOnly() async {
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await store.send(.show(.banner("Saved"))) { $0.destination = .banner("Saved") }
    #expect(store.state.destination?.banner == "Saved")
    await store.send(.show(.empty)) { $0.destination = .empty }
    await store.send(.destination(.dismiss)) { $0.destination = nil }
  }

  @Test func anAlertCaseIsDismissedByItsOwnActionsOnly() async {
    let store = TestStore(initialState: AlertingParent.State()) { AlertingParent() }
    await store.send(.showAlert) { $0.destination = .alert(AlertingParent.alert) }
    // An action for another case leaves the alert up (and is reported: that case is not shown).
    await withKnownIssue {
      await store.send(.destination(.presented(.counter(.increment))))
    }
    await store.send(\.destination.alert.confirm) {
      $0.destination = nil
      $0.confirmed = true
    }
  }

  @Test func anEphemeralCaseIsDismissedByItsAction() async {
    let store = TestStore(
      initialState: AlertingParent.State(destination: .banner(Banner(text: "Saved")))
    ) {
      AlertingParent()
    }
    await store.send(\.destination.banner.tapped) { $0.destination = nil }
  }

  @Test func generatedTypesTakeConformancesFromExtensions() throws {
    let state = Destination.State.counter(Counter.State(count: 2))
    let data = try JSONEncoder().encode(state)
    #expect(try JSONDecoder().decode(Destination.State.self, from: data) == state)
    #expect(Set([Destination.Action.counter(.increment)]).count == 1)
    func isSendable(_: some Sendable) {}
    isSendable(state)
  }
}

extension EnumReducerTests.Destination.State: Codable, Hashable, Sendable {}
extension EnumReducerTests.Destination.Action: Equatable, Hashable, Sendable {}

extension EnumReducerTests.AlertingDestination.State: Equatable {}
extension EnumReducerTests.AlertingDestination.Action: Equatable {}
