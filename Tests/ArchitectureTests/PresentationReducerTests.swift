import Architecture
import Clocks
import Foundation
import Testing

@MainActor
struct PresentationReducerTests {
  @Reducer
  struct Timer {
    struct State: Equatable, Identifiable {
      var id = 0
      var ticks = 0
    }
    @CasePathable
    enum Action: Equatable {
      case closeButtonTapped
      case startButtonTapped
      case tick
    }
    enum CancelID { case timer }
    @Dependency(\.continuousClock) var clock
    @Dependency(\.dismiss) var dismiss

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .closeButtonTapped:
          return .run { _ in await dismiss() }
        case .startButtonTapped:
          return .run { send in
            for await _ in clock.timer(interval: .seconds(1)) {
              await send(.tick)
            }
          }
          .cancellable(id: CancelID.timer)
        case .tick:
          state.ticks += 1
          return .none
        }
      }
    }
  }

  @Reducer
  struct Parent {
    struct State: Equatable {
      @PresentationState var timer: Timer.State?
      var dismissalsSeen: [Int] = []
    }
    @CasePathable
    enum Action: Equatable {
      case timer(PresentationAction<Timer.Action>)
      case presentTimer(id: Int)
      case closeTimer
      case stopAllTimers
    }

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .presentTimer(let id):
          state.timer = Timer.State(id: id)
          return .none
        case .closeTimer:
          state.timer = nil
          return .none
        case .stopAllTimers:
          return .cancel(id: Timer.CancelID.timer)
        case .timer(.dismiss):
          // The parent sees the dismissal while the child is still there.
          state.dismissalsSeen.append(state.timer?.id ?? -1)
          return .none
        case .timer:
          return .none
        }
      }
      .ifLet(\.$timer, action: \.timer) {
        Timer()
      }
    }
  }

  @Reducer
  struct Replacing {
    struct State: Equatable {
      @PresentationState var timer: Timer.State?
    }
    @CasePathable
    enum Action: Equatable { case timer(PresentationAction<Timer.Action>) }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if case .timer(.dismiss) = action, state.timer?.id == 1 {
          state.timer = Timer.State(id: 2)
        }
        return .none
      }
      .ifLet(\.$timer, action: \.timer) { Timer() }
    }
  }

  @Reducer
  struct Middle {
    struct State: Equatable {
      @PresentationState var timer: Timer.State?
    }
    @CasePathable
    enum Action: Equatable {
      case timer(PresentationAction<Timer.Action>)
      case presentTimer
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if case .presentTimer = action { state.timer = Timer.State() }
        return .none
      }
      .ifLet(\.$timer, action: \.timer) { Timer() }
    }
  }
  @Reducer
  struct Outer {
    struct State: Equatable {
      @PresentationState var middle: Middle.State?
    }
    @CasePathable
    enum Action: Equatable { case middle(PresentationAction<Middle.Action>) }
    var body: some ReducerOf<Self> {
      EmptyReducer<State, Action>()
        .ifLet(\.$middle, action: \.middle) { Middle() }
    }
  }

  struct Notice: Equatable, _EphemeralState {
    var text: String
  }
  @CasePathable
  enum NoticeAction: Equatable { case ok, retry }
  @Reducer
  struct NoticeFeature {
    struct State: Equatable {
      @PresentationState var notice: Notice?
      var retried = false
    }
    @CasePathable
    enum Action: Equatable { case notice(PresentationAction<NoticeAction>), fail }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .fail:
          state.notice = Notice(text: "Failed")
          return .none
        case .notice(.presented(.retry)):
          state.retried = state.notice != nil  // still there when the parent sees it
          return .none
        case .notice:
          return .none
        }
      }
      .ifLet(\.$notice, action: \.notice)
    }
  }

  @CasePathable
  enum Child: Equatable {
    case count(Int)
    case text(String)
  }

  @Test func childDismissesItselfWithTheDismissDependency() async {
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await store.send(.presentTimer(id: 1)) { $0.timer = Timer.State(id: 1) }
    await store.send(\.timer.closeButtonTapped)
    await store.receive(\.timer.dismiss) {
      $0.timer = nil
      $0.dismissalsSeen = [1]
    }
  }

  @Test func dismissalCancelsTheChildsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.presentTimer(id: 1)) { $0.timer = Timer.State(id: 1) }
    await store.send(.timer(.presented(.startButtonTapped)))
    await clock.advance(by: .seconds(1))
    await store.receive(\.timer.tick) { $0.timer?.ticks = 1 }
    await store.send(.timer(.dismiss)) {
      $0.timer = nil
      $0.dismissalsSeen = [1]
    }
    // The timer was cancelled with the child: nothing more arrives, and nothing is in flight.
    await clock.advance(by: .seconds(5))
  }

  @Test func parentNillingTheChildCancelsItsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.presentTimer(id: 1)) { $0.timer = Timer.State(id: 1) }
    await store.send(.timer(.presented(.startButtonTapped)))
    await store.send(.closeTimer) { $0.timer = nil }
    await clock.advance(by: .seconds(5))
  }

  @Test func presentingAnotherChildCancelsTheFirstOnesEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.presentTimer(id: 1)) { $0.timer = Timer.State(id: 1) }
    await store.send(.timer(.presented(.startButtonTapped)))
    // A child with another id takes the place of the first: its timer ends.
    await store.send(.presentTimer(id: 2)) { $0.timer = Timer.State(id: 2) }
    await clock.advance(by: .seconds(5))
  }

  @Test func parentCancellingAnIDCancelsTheChildsEffectsUnderIt() async {
    let clock = TestClock()
    let store = TestStore(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.presentTimer(id: 1)) { $0.timer = Timer.State(id: 1) }
    await store.send(.timer(.presented(.startButtonTapped)))
    await store.send(.stopAllTimers)
    await clock.advance(by: .seconds(5))
  }

  @Test func dismissingWhatTheParentReplacedKeepsTheReplacement() async {
    let store = TestStore(initialState: Replacing.State(timer: Timer.State(id: 1))) {
      Replacing()
    }
    await store.send(.timer(.dismiss)) { $0.timer = Timer.State(id: 2) }
    await store.send(.timer(.dismiss)) { $0.timer = nil }
  }

  @Test func anActionForADismissedChildIsReported() async {
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await withKnownIssue {
      await store.send(.timer(.presented(.tick)))
    } matching: { issue in
      issue.description.contains("received a presentation action when destination state was absent")
    }
    await withKnownIssue {
      await store.send(.timer(.dismiss))
    }
  }

  @Test func dismissingAFeatureThatIsNotPresentedIsReported() async {
    // A `Store` has nothing to dismiss it (a root `TestStore` is dismissed: see
    // `TestStoreTests`).
    let store = Store(initialState: Timer.State()) { Timer() }
    await withKnownIssue {
      await store.send(.closeButtonTapped).finish()
    } matching: { issue in
      issue.description.contains("but it is not presented")
    }
  }

  @Test func anOverriddenDismissRunsInsteadOfDismissing() async {
    let dismissed = LockIsolated(false)
    let store = TestStore(initialState: Timer.State()) {
      Timer()
    } withDependencies: {
      $0.dismiss = DismissEffect { dismissed.setValue(true) }
    }
    await store.send(.closeButtonTapped)
    await store.finish()
    #expect(dismissed.value)
  }

  @Test func aGrandchildDismissesOnlyItself() async {
    let store = TestStore(initialState: Outer.State(middle: Middle.State())) { Outer() }
    await store.send(\.middle.presentTimer) { $0.middle?.timer = Timer.State() }
    await store.send(\.middle.timer.closeButtonTapped)
    await store.receive(\.middle.timer.dismiss) { $0.middle?.timer = nil }
  }

  @Test func ephemeralStateIsDismissedByAnyOfItsActions() async {
    let store = TestStore(initialState: NoticeFeature.State()) { NoticeFeature() }
    await store.send(.fail) { $0.notice = Notice(text: "Failed") }
    await store.send(.notice(.presented(.retry))) {
      $0.notice = nil
      $0.retried = true
    }
  }

  @Test func caseSubscriptChangesThePresentedCaseInPlace() {
    var state = PresentationState<Child>(wrappedValue: .count(1))
    state[case: \.count]? += 1
    #expect(state.wrappedValue == .count(2))
    withKnownIssue {
      state[case: \.text] = "changed"
    }
    #expect(state.wrappedValue == .count(2))
    state[case: \.count] = nil
    #expect(state.wrappedValue == nil)
  }

  @Test func presentationStateIsACopyOnWriteValue() {
    let original = PresentationState(wrappedValue: 1)
    var copy = original
    copy.wrappedValue = 2
    #expect(original.wrappedValue == 1)
    #expect(copy.wrappedValue == 2)
    #expect(original != copy)
  }

  @Test func deprecatedCasePathSpellingStillIntegratesTheChild() async {
    let store = TestStore(initialState: DeprecatedSpelling.State()) { DeprecatedSpelling() }
    await store.send(.presentTimer) { $0.timer = Timer.State() }
    await store.send(.timer(.presented(.tick))) { $0.timer?.ticks = 1 }
  }
}

/// A parent written with the case-path spelling from before TCA 1.4 (`/Action.timer`).
@Reducer
struct DeprecatedSpelling {
  struct State: Equatable {
    @PresentationState var timer: PresentationReducerTests.Timer.State?
  }
  enum Action: Equatable {
    case timer(PresentationAction<PresentationReducerTests.Timer.Action>)
    case presentTimer
  }
  @available(*, deprecated)
  var body: some ReducerOf<Self> {
    Reduce { state, action in
      if case .presentTimer = action { state.timer = PresentationReducerTests.Timer.State() }
      return .none
    }
    .ifLet(\.$timer, action: /Action.timer) {
      PresentationReducerTests.Timer()
    }
  }
}

/// Asserts on the presented timer with `XCTModify` (deprecated in CasePaths), called through a
/// protocol so the tests that use it build without warnings.
protocol TimerModification {
  func callAsFunction(_ state: inout PresentationReducerTests.Parent.State)
}

struct SetTicksWithXCTModify: TimerModification {
  let ticks: Int
  @available(*, deprecated)
  func callAsFunction(_ state: inout PresentationReducerTests.Parent.State) {
    XCTModify(&state.timer) { $0.ticks = ticks }
  }
}

extension PresentationReducerTests {
  @Test func xctModifyDoesNotReportUnchangedValuesInNonExhaustiveAssertions() async {
    let modify: any TimerModification = SetTicksWithXCTModify(ticks: 1)
    let store = TestStore(initialState: Parent.State(timer: Timer.State(id: 1))) { Parent() }
    store.exhaustivity = .off
    // The expected state starts from the actual one, where `ticks` is already 1.
    await store.send(.timer(.presented(.tick))) { modify(&$0) }
  }

  @Test func xctModifyReportsUnchangedValuesInExhaustiveAssertions() async {
    let modify: any TimerModification = SetTicksWithXCTModify(ticks: 0)
    let store = TestStore(initialState: Parent.State(timer: Timer.State(id: 1))) { Parent() }
    withKnownIssue {
      store.assert { modify(&$0) }
    } matching: { issue in
      issue.description.contains("unchanged")
    }
  }

  @Test func aPresentedChildsEffectLeftRunningFailsAnExhaustiveTest() async {
    let clock = TestClock()
    await withKnownIssue {
      let store = TestStore(initialState: Parent.State(timer: Timer.State(id: 1))) {
        Parent()
      } withDependencies: {
        $0.continuousClock = clock
      }
      await store.send(\.timer.startButtonTapped)
    } matching: { issue in
      issue.description.contains("still running")
    }
  }
}
