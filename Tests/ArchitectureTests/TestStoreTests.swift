import Architecture
import Clocks
import Foundation
import IssueReporting
import Testing

@MainActor
struct TestStoreTests {
  struct Counter: Reducer {
    struct State: Equatable {
      var count = 0
      var fact: String?
      var isTimerRunning = false
    }
    @CasePathable
    enum Action: Equatable {
      case decrementButtonTapped
      case incrementButtonTapped
      case factButtonTapped
      case factResponse(String)
      case toggleTimerButtonTapped
      case timerTicked
    }
    enum CancelID { case timer }
    @Dependency(\.continuousClock) var clock

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .decrementButtonTapped:
          state.count -= 1
          return .none
        case .incrementButtonTapped:
          state.count += 1
          return .none
        case .factButtonTapped:
          state.fact = nil
          return .run { [count = state.count] send in
            try await clock.sleep(for: .seconds(1))
            await send(.factResponse("\(count) is a good number."))
          }
        case .factResponse(let fact):
          state.fact = fact
          return .none
        case .toggleTimerButtonTapped:
          state.isTimerRunning.toggle()
          guard state.isTimerRunning else { return .cancel(id: CancelID.timer) }
          return .run { send in
            for await _ in clock.timer(interval: .seconds(1)) {
              await send(.timerTicked)
            }
          }
          .cancellable(id: CancelID.timer)
        case .timerTicked:
          state.count += 1
          return .none
        }
      }
    }
  }

  @Test func counterStory() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    await store.send(.decrementButtonTapped) { $0.count = 0 }
  }

  @Test func effectResponseIsReceivedAfterTheClockAdvances() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State(count: 3)) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.factButtonTapped)
    await clock.advance(by: .seconds(1))
    await store.receive(\.factResponse, "3 is a good number.") {
      $0.fact = "3 is a good number."
    }
  }

  @Test func receiveByEquatableActionAndByPredicate() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.factButtonTapped)
    await clock.advance(by: .seconds(1))
    await store.receive(.factResponse("0 is a good number.")) {
      $0.fact = "0 is a good number."
    }
    await store.send(.factButtonTapped) { $0.fact = nil }
    await clock.advance(by: .seconds(1))
    await store.receive({ $0 == .factResponse("0 is a good number.") }) {
      $0.fact = "0 is a good number."
    }
  }

  @Test func timerTicksUntilToggledOff() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.toggleTimerButtonTapped) { $0.isTimerRunning = true }
    for count in 1...3 {
      await clock.advance(by: .seconds(1))
      await store.receive(\.timerTicked) { $0.count = count }
    }
    await store.send(.toggleTimerButtonTapped) { $0.isTimerRunning = false }
  }

  @Test func finishWaitsForEffectsToEnd() async {
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = ImmediateClock()
    }
    await store.send(.factButtonTapped)
    await store.receive(\.factResponse) { $0.fact = "0 is a good number." }
    await store.finish()
  }

  @Test func testStoreTaskCancelStopsTheEffect() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }
    let task = await store.send(.toggleTimerButtonTapped) { $0.isTimerRunning = true }
    await task.cancel()
    #expect(task.isCancelled)
  }

  @Test func dependenciesCanChangeBetweenSteps() async {
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    store.dependencies.continuousClock = ImmediateClock()
    await store.send(.factButtonTapped)
    await store.receive(\.factResponse) { $0.fact = "0 is a good number." }
  }

  @Test func nonExhaustiveStoreChecksOnlyWhatIsAsserted() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }
    store.exhaustivity = .off
    await store.send(.incrementButtonTapped)
    await store.send(.toggleTimerButtonTapped)
    // Advance one tick at a time: `TestClock` yields to the cooperative pool between sleeps, so a
    // multi-tick jump can overtake a timer that has not registered its next sleep yet.
    for _ in 1...3 {
      await clock.advance(by: .seconds(1))
    }
    await store.receive(\.timerTicked) { $0.count = 2 }
    await store.skipReceivedActions()
    #expect(store.state.count == 4)
    #expect(store.state.isTimerRunning)
  }

  @Test func nonExhaustiveStoreCanShowSkippedAssertions() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    store.exhaustivity = .off(showSkippedAssertions: true)
    await store.send(.incrementButtonTapped)
  }

  /// Sends itself an action and starts an effect that outlives the test.
  @Reducer
  struct Lingering {
    struct State: Equatable { var started = false }
    enum Action: Equatable {
      case start
      case started
    }
    @Dependency(\.continuousClock) var clock

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .start:
          return .merge(
            .send(.started),
            .run { _ in try await clock.sleep(for: .seconds(60)) }
          )
        case .started:
          state.started = true
          return .none
        }
      }
    }
  }

  /// As in TCA, what such a test leaves at its end (an action received and not asserted, an
  /// effect still running) is shown as expected issues: reported, without failing the test.
  @Test func showingSkippedAssertionsListsWhatTheTestLeftAtItsEnd() async {
    let messages = ReportedMessages()
    await withIssueReporters(IssueReporters.current + [messages]) {
      let store = TestStore(initialState: Lingering.State()) {
        Lingering()
      } withDependencies: {
        $0.continuousClock = TestClock()
      }
      store.exhaustivity = .off(showSkippedAssertions: true)
      await store.send(.start)
    }
    // The store is gone: its end was reported while the reporters above were in force.
    let reported = messages.value
    #expect(reported.count == 2)
    #expect(reported.first?.hasPrefix("Skipped receiving 1 action(s) by the end") == true)
    #expect(reported.first?.contains("started") == true)
    #expect(reported.last?.hasPrefix("Skipped 1 in-flight effect(s) at the end") == true)
    #expect(reported.last?.contains("start") == true)
  }

  @Test func aNonExhaustiveTestThatHidesSkippedAssertionsReportsNothingAtItsEnd() async {
    let messages = ReportedMessages()
    await withIssueReporters(IssueReporters.current + [messages]) {
      let store = TestStore(initialState: Lingering.State()) {
        Lingering()
      } withDependencies: {
        $0.continuousClock = TestClock()
      }
      store.exhaustivity = .off
      await store.send(.start)
    }
    #expect(messages.value.isEmpty)
  }

  @Test func skipReceivedActionsAcceptsTheLatestState() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.factButtonTapped)
    await clock.advance(by: .seconds(1))
    await store.skipReceivedActions()
    #expect(store.state.fact == "0 is a good number.")
    await store.send(.incrementButtonTapped) { $0.count = 1 }
  }

  @Test func skipInFlightEffectsStopsTrackingButLetsEffectsRunAndEmit() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.toggleTimerButtonTapped) { $0.isTimerRunning = true }
    await store.skipInFlightEffects()
    // The timer was not cancelled: it still ticks, and its actions can be received.
    await clock.advance(by: .seconds(1))
    await store.receive(\.timerTicked) { $0.count = 1 }
    await store.send(.toggleTimerButtonTapped) { $0.isTimerRunning = false }
    await store.finish()
  }

  @Test func sendByCaseKeyPath() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.send(\.incrementButtonTapped) { $0.count = 1 }
    await store.send(\.factResponse, "1 is lonely") { $0.fact = "1 is lonely" }
  }

  struct Stamp: Reducer {
    struct State: Equatable { var id: UUID? }
    @CasePathable enum Action: Equatable { case stamp, stamped }
    @Dependency(\.uuid) var uuid
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .stamp:
        state.id = uuid()
        return .run { send in await send(.stamped) }
      case .stamped:
        state.id = nil
        return .none
      }
    }
  }

  @Test func assertionClosuresRunWithTheStoresDependencies() async {
    let id = UUID(uuidString: "DEADBEEF-0000-0000-0000-000000000000")!
    let store = TestStore(initialState: Stamp.State()) {
      Stamp()
    } withDependencies: {
      $0.uuid = .constant(id)
    }
    // Outside the store `uuid` is the unimplemented test value; in the closures it is the
    // store's.
    @Dependency(\.uuid) var uuid
    await store.send(.stamp) {
      $0.id = uuid()
    }
    await store.receive(\.stamped) {
      #expect(uuid() == id)
      $0.id = nil
    }
  }

  @Test func withExhaustivityScopesAModeChange() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.withExhaustivity(.off) {
      #expect(store.exhaustivity == .off)
      await store.send(.incrementButtonTapped)
      await store.send(.incrementButtonTapped) { $0.count = 2 }
    }
    #expect(store.exhaustivity == .on)
    await withKnownIssue {
      await store.send(.incrementButtonTapped)
    } matching: {
      $0.description.contains("State was not expected to change")
    }
  }

  @Test func assertChecksTheCurrentState() async {
    let store = TestStore(initialState: Counter.State(count: 2)) { Counter() }
    store.assert { $0.count = 2 }
  }

  /// A feature that dismisses itself, run in a test store with no parent to present it.
  @Reducer
  struct SelfDismissing {
    struct State: Equatable {
      var count = 0
    }
    enum Action: Equatable {
      case closeButtonTapped
      case incrementButtonTapped
      case onAppear
      case tick
    }
    @Dependency(\.continuousClock) var clock
    @Dependency(\.dismiss) var dismiss

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .closeButtonTapped:
          return .run { _ in await dismiss() }
        case .incrementButtonTapped:
          state.count += 1
          return .none
        case .onAppear:
          return .run { send in
            for await _ in clock.timer(interval: .seconds(1)) {
              await send(.tick)
            }
          }
        case .tick:
          state.count += 1
          return .none
        }
      }
    }
  }

  @Test func dismissingARootTestStoreCancelsItsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: SelfDismissing.State()) {
      SelfDismissing()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.onAppear)
    await clock.advance(by: .seconds(1))
    await store.receive(.tick) { $0.count = 1 }
    await store.send(.closeButtonTapped)
    #expect(store.isDismissed)
    // The timer was cancelled with the store: no tick, and nothing left running at the end.
    await clock.advance(by: .seconds(1))
  }

  @Test func sendingToADismissedTestStoreIsReported() async {
    let store = TestStore(initialState: SelfDismissing.State()) { SelfDismissing() }
    await store.send(.closeButtonTapped)
    await withKnownIssue {
      await store.send(.incrementButtonTapped) { $0.count = 1 }
    } matching: { issue in
      issue.description.contains("Can't send an action: the store was dismissed.")
    }
    #expect(store.state.count == 0)
  }
}

/// Writes through a test store's `dependencies` between steps: a write such as
/// `store.dependencies.calendar.firstWeekday = 2` reads the key first, and that read must not
/// report a missing test value, as in the test store's `withDependencies`.
@MainActor
struct TestStoreDependencyWritingTests {
  /// Reads the calendar and the time zone, and fetches a greeting from a client registered with
  /// only a live value.
  struct Almanac: Reducer {
    struct State: Equatable {
      var firstWeekday = 0
      var greeting = ""
      var secondsFromGMT: Int?
    }
    enum Action: Equatable { case readCalendar, readTimeZone, greet, greeted(String) }
    @Dependency(\.calendar) var calendar
    @Dependency(\.timeZone) var timeZone
    @Dependency(\.liveOnlyGreeter) var greeter
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .readCalendar:
        state.firstWeekday = calendar.firstWeekday
        return .none
      case .readTimeZone:
        state.secondsFromGMT = timeZone.secondsFromGMT()
        return .none
      case .greet:
        return .run { send in await send(.greeted(try await greeter.greet(name: "Oslo"))) }
      case .greeted(let greeting):
        state.greeting = greeting
        return .none
      }
    }
  }

  @Test func settingAFieldOfAKeyWhoseReadReportsReportsNothing() async {
    let store = TestStore(initialState: Almanac.State()) { Almanac() }
    store.dependencies.calendar.firstWeekday = 2
    await store.send(.readCalendar) { $0.firstWeekday = 2 }
  }

  @Test func settingAnEndpointOfAClientWhoseReadReportsReportsNothing() async {
    let store = TestStore(initialState: Almanac.State()) { Almanac() }
    store.dependencies.liveOnlyGreeter.greet = { "Hi, \($0)" }
    await store.send(.greet)
    await store.receive(.greeted("Hi, Oslo")) { $0.greeting = "Hi, Oslo" }
  }

  @Test func aKeyTheTestDidNotSetStillReports() async {
    let store = TestStore(initialState: Almanac.State()) { Almanac() }
    store.dependencies.calendar.firstWeekday = 2
    await store.send(.readCalendar) { $0.firstWeekday = 2 }
    let offset = TimeZone.autoupdatingCurrent.secondsFromGMT()
    await withKnownIssue {
      await store.send(.readTimeZone) { $0.secondsFromGMT = offset }
    } matching: {
      $0.description.contains(
        #"@Dependency(\.timeZone) has no test implementation, but was read from a test."#)
    }
  }
}

/// Greets someone; its endpoints are unimplemented in tests.
@DependencyClient
struct GreeterClient: Sendable {
  var greet: @Sendable (_ name: String) async throws -> String
}

/// The greeter registered with only a live value, so reading it in a test reports.
private enum LiveOnlyGreeterKey: DependencyKey {
  static let liveValue = GreeterClient(greet: { "Hello, \($0)" })
}

extension DependencyValues {
  fileprivate var liveOnlyGreeter: GreeterClient {
    get { self[LiveOnlyGreeterKey.self] }
    set { self[LiveOnlyGreeterKey.self] = newValue }
  }
}

/// Collects the messages of the issues reported while it is among the reporters.
private final class ReportedMessages: IssueReporter {
  private let messages = LockIsolated<[String]>([])

  var value: [String] { messages.value }

  func reportIssue(
    _ message: @autoclosure () -> String?,
    severity: IssueSeverity,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt
  ) {
    let message = message() ?? ""
    messages.withValue { $0.append(message) }
  }
}
