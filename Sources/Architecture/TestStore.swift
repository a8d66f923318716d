@_spi(Internals) import CasePaths
import ConcurrencyExtras
import CustomDump
@_spi(Internals) import Dependencies
import Foundation
import IssueReporting

/// A store for tests that asserts, step by step, how state changes and which actions effects
/// send back.
///
/// Write a test as a story: send an action and describe the state change, receive each action an
/// effect sends, and let the test store check that nothing else happened:
///
/// ```swift
/// @Test func timerTicks() async {
///   let clock = TestClock()
///   let store = TestStore(initialState: Timer.State()) {
///     Timer()
///   } withDependencies: {
///     $0.continuousClock = clock
///   }
///
///   await store.send(.startButtonTapped) {
///     $0.isRunning = true
///   }
///   await clock.advance(by: .seconds(1))
///   await store.receive(\.tick) {
///     $0.seconds = 1
///   }
///   await store.send(.stopButtonTapped) {
///     $0.isRunning = false
///   }
/// }
/// ```
///
/// By default the test store is *exhaustive*: the test fails if a state change is not asserted,
/// if an action received from an effect is not asserted with `receive`, or if an effect is still
/// running when the test store goes away. Set ``exhaustivity`` to
/// ``Exhaustivity/off(showSkippedAssertions:)`` to assert only what matters to a test.
///
/// Failures are reported through IssueReporting, so they work under Swift Testing and XCTest, at
/// the line of the `send` or `receive` that failed, with a diff of expected (−) and actual (+)
/// state.
///
/// The test store runs its reducer in the `test` dependency context. Its effects run their code
/// on the main queue (a task executor preference), interleaved with the test in a fixed order, so
/// a test on the main actor does not depend on thread timing and needs no process-wide serial
/// executor: such tests can run in parallel. Work an effect hands to unstructured or detached
/// tasks runs on the global pool as usual.
///
/// Two guarantees make clocks and effects meet as in TCA:
///
/// - When `send` (or `receive`) returns, every effect started so far has begun running: it has
///   run up to its first suspension, such as the `clock.sleep` of a timer, so a `TestClock`
///   advanced next wakes it.
/// - `TestClock.advance` yields between the sleeps it wakes, on its caller's executor. From the
///   main actor those yields queue behind the effects' steps. From anywhere else (a test that is
///   not `@MainActor`, like TCA's XCTest cases) they would run on the global pool and could
///   outpace the effects, so a test store created off the main actor serializes the global
///   executor onto the main queue while it lives (``useMainSerialExecutor``), as TCA's does.
@MainActor
public final class TestStore<State: Equatable, Action> {
  /// How strictly the test store checks that the test asserts everything that happens.
  public var exhaustivity: Exhaustivity = .on {
    didSet { exhaustivityForDeinit = exhaustivity }
  }

  /// How long `receive` and ``finish(timeout:fileID:filePath:line:column:)`` wait by default for
  /// effects: one second.
  public var timeout: Duration = .seconds(1)

  /// Whether every task in the process runs on the main queue while this test store lives, so
  /// that code outside the main actor (a `TestClock` advanced there, for one) interleaves with
  /// the effects in a fixed order.
  ///
  /// `true` for a test store created off the main actor, as in TCA's XCTest cases; `false` for
  /// one created on it, where the order is fixed without it and other tests can keep running in
  /// parallel. Setting it is process-wide while the store lives (test stores that set it share
  /// the setting), so prefer `@MainActor` tests to setting it.
  public var useMainSerialExecutor = false {
    didSet {
      guard useMainSerialExecutor != oldValue else { return }
      holdMainSerialExecutor(useMainSerialExecutor)
    }
  }

  /// The state as the test has asserted it so far.
  public private(set) var state: State

  /// Whether the feature dismissed the store: an effect called `@Dependency(\.dismiss)` while
  /// no parent presented the feature. A dismissed store's effects are cancelled, and sending it
  /// an action is reported as an issue.
  public private(set) var isDismissed = false

  private let core: RootCore<State, TestAction<Action>>
  nonisolated(unsafe) private let recorder: TestRecorder<State, Action>
  // Read in `deinit`; written only on the main actor.
  nonisolated(unsafe) private var exhaustivityForDeinit: Exhaustivity = .on
  // Read in `deinit`; written only on the main actor.
  nonisolated(unsafe) private var holdsMainSerialExecutor = false
  private let location: SourceLocation

  /// The dependencies the reducer and its effects use. Change them between steps to change what
  /// later actions see.
  ///
  /// ```swift
  /// store.dependencies.uuid = .incrementing
  /// store.dependencies.calendar.firstWeekday = 2
  /// ```
  ///
  /// As in the test store's `withDependencies`, the read that a write such as
  /// `store.dependencies.client.endpoint = …` implies does not report a missing test value; a
  /// feature that reads a key the test did not set still does.
  public var dependencies: DependencyValues {
    get { core.dependencies }
    set { core.dependencies = newValue }
    _modify {
      core.dependencies.isBeingSet = true
      defer { core.dependencies.isBeingSet = false }
      yield &core.dependencies
    }
  }

  /// Creates a test store from an initial state and a reducer.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The reducer under test.
  ///   - prepareDependencies: Overrides dependencies; everything not overridden gives its test
  ///     value, which usually fails the test when used. Override only what the test's story uses.
  ///   - isolation: The caller's isolation, which chooses ``useMainSerialExecutor``; leave it
  ///     out.
  public init<R: Reducer>(
    initialState: @autoclosure () -> R.State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    isolation: (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where R.State == State, R.Action == Action {
    let (initialState, reducer, dependencies) = withDependencies {
      $0.context = .test
      prepareDependencies(&$0)
    } operation: {
      (initialState(), reducer(), DependencyValues._current)
    }
    let recorder = TestRecorder<State, Action>()
    self.recorder = recorder
    self.state = initialState
    self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    self.core = RootCore(
      initialState: initialState,
      reducer: TestReducer(base: reducer, recorder: recorder),
      dependencies: dependencies,
      taskExecutor: MainQueueTaskExecutor.shared
    )
    core.dismissal = { [weak self] in self?.dismiss() }
    core.effectStarts = EffectStarts()
    if isolation !== MainActor.shared {
      useMainSerialExecutor = true
      holdMainSerialExecutor(true)
    }
  }

  private func holdMainSerialExecutor(_ hold: Bool) {
    if hold {
      MainSerialExecutorLease.acquire()
    } else {
      MainSerialExecutorLease.release()
    }
    holdsMainSerialExecutor = hold
  }

  deinit {
    defer {
      if holdsMainSerialExecutor { MainSerialExecutorLease.release() }
    }
    switch exhaustivityForDeinit {
    case .on:
      reportUnreceivedActions(at: location)
      reportInFlightEffects(at: nil, defaultLocation: location)
    case .off(showSkippedAssertions: true):
      reportSkippedAtEnd(at: location)
    case .off(showSkippedAssertions: false):
      break
    }
  }
}

/// The test store type for a reducer: `TestStoreOf<Counter>`.
public typealias TestStoreOf<R: Reducer> = TestStore<R.State, R.Action> where R.State: Equatable

/// How strictly a ``TestStore`` checks that a test asserts everything that happens.
public enum Exhaustivity: Equatable, Sendable {
  /// Every state change, received action and running effect must be asserted. The default.
  case on

  /// Only what the test asserts is checked: state assertions compare the fields the test sets,
  /// `receive` skips actions until one matches, and actions or effects left at the end are
  /// ignored.
  ///
  /// - Parameter showSkippedAssertions: Whether to list what was skipped as expected issues, so
  ///   they show in the test log without failing the test.
  case off(showSkippedAssertions: Bool)

  /// Non-exhaustive checking that does not list what it skips.
  public static let off = Self.off(showSkippedAssertions: false)
}

/// The asynchronous work started by sending an action to a ``TestStore``.
///
/// ```swift
/// let task = await store.send(.onAppear)
/// // ...
/// await task.cancel()
/// ```
public struct TestStoreTask: Hashable, Sendable {
  let rawValue: Task<Void, Never>?
  let timeout: Duration
  private let group: EffectGroup?

  init(group: EffectGroup?, timeout: Duration) {
    self.rawValue = group?.task
    self.timeout = timeout
    self.group = group
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue == rhs.rawValue && lhs.timeout == rhs.timeout
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rawValue)
  }

  /// Cancels the effects and waits for them to end.
  public func cancel() async {
    rawValue?.cancel()
    await rawValue?.value
  }

  /// Waits for the effects to finish, and fails the test if they are still running after
  /// `timeout` (by default the test store's ``TestStore/timeout``).
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    guard let rawValue else { return }
    let timeout = timeout ?? self.timeout
    let finished = await firstResult(
      {
        await rawValue.value
        return true
      },
      {
        try? await Task.sleep(for: timeout)
        return false
      }
    )
    guard !finished else { return }
    reportIssue(
      """
      Expected the task to finish, but it is still running after \(timeout).

      To fix this, make the effect end (cancel it, or advance the test clock it sleeps on), or \
      pass a longer 'timeout:'.
      """,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Waits for the effects to finish, with the timeout in nanoseconds (TCA's older spelling).
  public func finish(
    timeout nanoseconds: UInt64,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await finish(
      timeout: .nanoseconds(Int64(clamping: nanoseconds)),
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Whether the task was cancelled, or every effect the action started was.
  public var isCancelled: Bool {
    group?.isCancelled ?? false
  }
}

extension TestStore {
  /// Sends an action and asserts how it changes state.
  ///
  /// ```swift
  /// await store.send(.incrementButtonTapped) {
  ///   $0.count = 1
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action to send.
  ///   - updateStateToExpectedResult: Changes the state before the action into the state you
  ///     expect after it. Omit it when the action should not change state.
  /// - Returns: The effects the action started, to cancel them or wait for them.
  @discardableResult
  public func send(
    _ action: Action,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    let location = SourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    guard !isDismissed else {
      report(
        """
        Can't send an action: the store was dismissed. …

          Action:
        \(dump(action).indented)

        An effect of the feature called '@Dependency(\\.dismiss)' while no parent presented it, \
        which dismisses the test store: its effects were cancelled, and it takes no more \
        actions. To fix this, end the test once the feature has dismissed itself, or test it \
        presented by its parent.
        """,
        at: location)
      return TestStoreTask(group: nil, timeout: timeout)
    }
    // The state this action starts from: after the received actions, which the test may not have
    // asserted yet (they stay queued for a later `receive`).
    let previous: State
    if exhaustivity == .on, let last = recorder.received.last {
      previous = last.state
      report(
        """
        Must handle \(recorder.received.count) received \
        action\(recorder.received.count == 1 ? "" : "s") before sending an action: …

        Unhandled actions:
        \(dumpActions(recorder.received.map(\.action)))

        To fix this, assert on each with 'receive' before this 'send', or call \
        'skipReceivedActions()' to ignore them.
        """,
        at: location)
    } else {
      skipReceived(showSkipped: exhaustivity == .off(showSkippedAssertions: true))
      previous = state
    }

    recorder.sentState = nil
    recorder.sentNextStackID = nil
    let task = core.send(
      TestAction(action: action, origin: .send(location)), isolation: MainActor.shared)
    let actual = recorder.sentState ?? core.state
    expectState(
      previous: previous, actual: actual, update: updateStateToExpectedResult,
      nextStackID: recorder.sentNextStackID, at: location)
    state = actual
    await settle()
    return TestStoreTask(group: task, timeout: timeout)
  }

  /// Sends the action of a case that carries no value, named by its case key path.
  ///
  /// ```swift
  /// await store.send(\.incrementButtonTapped) {
  ///   $0.count = 1
  /// }
  /// ```
  @discardableResult
  public func send(
    _ action: CaseKeyPath<Action, Void>,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      action(()), assert: updateStateToExpectedResult,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Sends the action of a case with a value, named by its case key path.
  ///
  /// ```swift
  /// await store.send(\.child.textChanged, "hello") {
  ///   $0.child.text = "hello"
  /// }
  /// ```
  @discardableResult
  public func send<Value>(
    _ action: CaseKeyPath<Action, Value>,
    _ value: Value,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      action(value), assert: updateStateToExpectedResult,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Asserts that an effect sent a given action, and how it changed state.
  ///
  /// ```swift
  /// await store.receive(.factResponse("0 is a good number")) {
  ///   $0.fact = "0 is a good number"
  /// }
  /// ```
  public func receive(
    _ expectedAction: Action,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: Equatable {
    await receiveAction(
      matching: { $0 == expectedAction },
      expectation: "\(dump(expectedAction))",
      mismatch: { received in
        diffBlock(
          expectedAction, received, fallback: dump(received).indented, actualLabel: "Received")
      },
      timeout: timeout, update: updateStateToExpectedResult,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Asserts that an effect sent an action matching a predicate, and how it changed state.
  ///
  /// ```swift
  /// await store.receive({ if case .response(.success) = $0 { true } else { false } }) {
  ///   $0.isLoading = false
  /// }
  /// ```
  public func receive(
    _ isMatching: (_ action: Action) -> Bool,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receiveAction(
      matching: isMatching,
      expectation: "an action matching the predicate",
      mismatch: { received in "\(dump(received).indented)" },
      timeout: timeout, update: updateStateToExpectedResult,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Asserts that an effect sent an action of a given case, and how it changed state.
  ///
  /// ```swift
  /// await store.receive(\.authorizationResponse) {
  ///   $0.alert = "Access to speech recognition was denied."
  /// }
  /// ```
  public func receive<Value>(
    _ actionCase: CaseKeyPath<Action, Value>,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let casePath = AnyCasePath(actionCase)
    await receiveAction(
      matching: { casePath.extract(from: $0) != nil },
      expectation: "an action of the expected case (\(describe(actionCase)))",
      mismatch: { received in "\(dump(received).indented)" },
      timeout: timeout, update: updateStateToExpectedResult,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Asserts that an effect sent an action of a given case with a given value, and how it changed
  /// state.
  ///
  /// ```swift
  /// await store.receive(\.transcribed, "hello world") {
  ///   $0.text = "hello world"
  /// }
  /// ```
  public func receive<Value: Equatable>(
    _ actionCase: CaseKeyPath<Action, Value>,
    _ value: Value,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let casePath = AnyCasePath(actionCase)
    await receiveAction(
      matching: { casePath.extract(from: $0) == value },
      expectation: "an action of the expected case (\(describe(actionCase))) with \(dump(value))",
      mismatch: { received in
        guard let receivedValue = casePath.extract(from: received) else {
          return "\(dump(received).indented)"
        }
        return diffBlock(
          value, receivedValue, fallback: dump(received).indented, actualLabel: "Received")
      },
      timeout: timeout, update: updateStateToExpectedResult,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Asserts the current state without sending an action, in non-exhaustive tests or after
  /// ``skipReceivedActions(strict:fileID:filePath:line:column:)``.
  public func assert(
    _ updateStateToExpectedResult: (_ state: inout State) throws -> Void,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let location = SourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    var expected = state
    do {
      try withAssertionContext(nextStackID: nil) { try updateStateToExpectedResult(&expected) }
    } catch {
      report("The 'assert' closure threw an error: \(error)", at: location)
      return
    }
    if expected != state {
      report(
        """
        The state does not match the expectation: …

        \(diffBlock(expected, state))
        """,
        at: location)
    }
  }

  /// Waits for every running effect to finish, and fails the test if some are still running
  /// after `timeout`.
  ///
  /// Call it at the end of a test whose effects end on their own:
  ///
  /// ```swift
  /// await store.send(.onAppear)
  /// await store.receive(\.loaded) { $0.items = items }
  /// await store.finish()
  /// ```
  ///
  /// Effects still running after the timeout are reported and cancelled.
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    let timeout = timeout ?? self.timeout
    await settle()
    if exhaustivity == .on {
      reportUnreceivedActions(at: location)
    }
    let finished = await wait(timeout: timeout) { core.registry.isEmpty }
    guard !finished else { return }
    let running = core.registry.running
    report(
      """
      Expected effects to finish, but \(running.count) \
      \(running.count == 1 ? "is" : "are") still running after \(timeout), started by:

      \(running.map { dump($0.entry.origin.action) }.joined(separator: "\n").indented)

      To fix this, make these effects end: advance the test clock they sleep on, cancel them \
      (for example with '.cancel(id:)'), or pass a longer 'timeout:'. To leave them running, call \
      'skipInFlightEffects()'. They have been cancelled.
      """,
      at: location)
    core.registry.cancelAll()
    _ = await wait(timeout: timeout) { core.registry.isEmpty }
  }

  /// Waits for every running effect to finish, with the timeout in nanoseconds (TCA's older
  /// spelling).
  public func finish(
    timeout nanoseconds: UInt64,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await finish(
      timeout: .nanoseconds(Int64(clamping: nanoseconds)),
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Marks every action received so far as asserted, without checking them.
  ///
  /// - Parameter strict: Whether to fail the test when there is nothing to skip.
  public func skipReceivedActions(
    strict: Bool = true,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await settle()
    if strict, recorder.received.isEmpty {
      report(
        """
        There were no received actions to skip.

        To fix this, remove the 'skipReceivedActions()' call, or pass 'strict: false' if the \
        actions arrive only sometimes.
        """,
        at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
      return
    }
    skipReceived(showSkipped: exhaustivity == .off(showSkippedAssertions: true))
  }

  /// Stops tracking every running effect, so the test can end while they still run.
  ///
  /// The effects are not cancelled: they keep running and sending actions, which a later
  /// `receive` can still assert. They are cancelled when the test store goes away.
  ///
  /// - Parameter strict: Whether to fail the test when no effect is running.
  public func skipInFlightEffects(
    strict: Bool = true,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await settle()
    let running = core.registry.running
    if strict, running.isEmpty {
      report(
        """
        There were no in-flight effects to skip.

        To fix this, remove the 'skipInFlightEffects()' call, or pass 'strict: false' if effects \
        run only sometimes.
        """,
        at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
      return
    }
    if exhaustivity == .off(showSkippedAssertions: true), !running.isEmpty {
      reportSkipped(
        "Skipped \(running.count) in-flight effect(s), started by:\n\n"
          + running.map { dump($0.entry.origin.action) }.joined(separator: "\n").indented,
        at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    core.registry.skipAll()
  }

  /// Runs `operation` with ``exhaustivity`` set to `exhaustivity`, then restores it.
  ///
  /// ```swift
  /// await store.withExhaustivity(.off) {
  ///   await store.send(.refresh)
  ///   await store.receive(\.loaded) { $0.items = items }
  /// }
  /// ```
  public func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity,
    operation: () async throws -> R
  ) async rethrows -> R {
    let previous = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = previous }
    return try await operation()
  }

  /// Runs synchronous `operation` with ``exhaustivity`` set to `exhaustivity`, then restores it.
  public func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity,
    operation: () throws -> R
  ) rethrows -> R {
    let previous = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = previous }
    return try operation()
  }
}

// MARK: - Checking

extension TestStore {
  private func receiveAction(
    matching isMatching: (Action) -> Bool,
    expectation: @autoclosure () -> String,
    mismatch: (Action) -> String,
    timeout: Duration?,
    update: ((inout State) throws -> Void)?,
    at location: SourceLocation
  ) async {
    let timeout = timeout ?? self.timeout
    let isExhaustive = exhaustivity == .on
    await settle()
    _ = await wait(timeout: timeout) {
      // Once no effect is running (skipped ones included), nothing more can arrive.
      core.registry.isIdle || recorder.received.contains { isMatching($0.action) }
        || (isExhaustive && !recorder.received.isEmpty)
    }
    let arrived =
      isExhaustive
      ? !recorder.received.isEmpty
      : recorder.received.contains { isMatching($0.action) }
    guard arrived else {
      let running = core.registry.running
      let detail =
        running.isEmpty
        ? """
        No effect is running, so none can send it. Check that the reducer returns an effect for \
        the action that should lead here.
        """
        : """
        \(running.count) effect\(running.count == 1 ? " was" : "s were") still running after \
        waiting \(timeout), started by:

        \(running.map { dump($0.entry.origin.action) }.joined(separator: "\n").indented)

        If an effect waits on a clock, advance it (for example 'await clock.advance(by: …)') \
        before receiving; or pass a longer 'timeout:'.
        """
      var message = "Expected to receive \(expectation()), but received none."
      if !isExhaustive, !recorder.received.isEmpty {
        message += """


          Received, and not matching:
          \(dumpActions(recorder.received.map(\.action)))
          """
      }
      report(message + "\n\n" + detail, at: location)
      return
    }

    if !isExhaustive {
      let index = recorder.received.firstIndex { isMatching($0.action) }!
      let skipped = recorder.received[..<index].map(\.action)
      recorder.received.removeFirst(index)
      if exhaustivity == .off(showSkippedAssertions: true), !skipped.isEmpty {
        reportSkipped(
          "Skipped receiving \(skipped.count) action(s):\n\n\(dumpActions(skipped))",
          at: location)
      }
    }
    let (action, actual, nextStackID) = recorder.received.removeFirst()
    guard isMatching(action) else {
      report(
        """
        Received an action that does not match the expectation: …

        \(mismatch(action))

        Expected to receive \(expectation()). Actions are received in the order effects send \
        them: to fix this, receive the actions that arrive before it, or change the expectation.
        """,
        at: location)
      state = actual
      return
    }
    expectState(
      previous: state, actual: actual, update: update, nextStackID: nextStackID, at: location)
    state = actual
    await settle()
  }

  private func expectState(
    previous: State,
    actual: State,
    update: ((inout State) throws -> Void)?,
    nextStackID: Int?,
    at location: SourceLocation
  ) {
    switch exhaustivity {
    case .on:
      var expected = previous
      if let update {
        do {
          try withAssertionContext(nextStackID: nextStackID) { try update(&expected) }
        } catch {
          report("The 'assert' closure threw an error: \(error)", at: location)
          return
        }
      }
      if expected != actual {
        let headline =
          update == nil
          ? "State was not expected to change, but a change occurred: …"
          : "A state change does not match expectation: …"
        let fix =
          update == nil
          ? "To fix this, add a trailing closure that sets the state this action changes."
          : "To fix this, make the trailing closure set the state to what the reducer produced, "
            + "or fix the reducer."
        report(
          """
          \(headline)

          \(diffBlock(expected, actual))

          \(fix)
          """,
          at: location)
      } else if update != nil, expected == previous {
        report(
          """
          Expected state to change, but no change occurred.

          The trailing closure made no change to the state, and the reducer did not change it \
          either. If no change is expected, remove the trailing closure.
          """,
          at: location)
      }

    case .off(let showSkippedAssertions):
      var expected = actual
      if let update {
        do {
          try withAssertionContext(nextStackID: nextStackID) { try update(&expected) }
        } catch {
          report("The 'assert' closure threw an error: \(error)", at: location)
          return
        }
      }
      if expected != actual {
        report(
          """
          A state change does not match expectation: …

          \(diffBlock(expected, actual))

          To fix this, make the trailing closure set the state to what the reducer produced, or \
          fix the reducer.
          """,
          at: location)
      } else if showSkippedAssertions {
        var exhaustive = previous
        try? withAssertionContext(nextStackID: nextStackID) { try update?(&exhaustive) }
        if exhaustive != actual {
          reportSkipped(
            """
            Skipped assertions: …

            \(diffBlock(exhaustive, actual))
            """,
            at: location)
        }
      }
    }
  }

  /// Drops the received actions, taking the state after the last of them.
  private func skipReceived(showSkipped: Bool) {
    guard let last = recorder.received.last else { return }
    if showSkipped {
      reportSkipped(
        """
        Skipped receiving \(recorder.received.count) action(s):

        \(dumpActions(recorder.received.map(\.action)))
        """,
        at: location)
    }
    state = last.state
    recorder.received.removeAll()
  }

  /// Lets effects that are ready to run reach their next suspension point.
  ///
  /// First waits until every effect started so far has begun running (each signals it as its
  /// task starts), then yields: effects run their code on the main queue behind the test, so
  /// yielding the main actor lets every effect job already queued run first, in order.
  private func settle() async {
    await core.effectStarts?.waitUntilAllStarted()
    for _ in 0..<20 {
      await Task.yield()
    }
    if isDismissed {
      // Dismissal cancelled every effect: let them end, so that exhaustivity sees none running.
      _ = await wait(timeout: timeout) { core.registry.isEmpty }
    }
  }

  /// Dismisses the store, as `@Dependency(\.dismiss)` does from an effect that no presentation
  /// encloses: cancels every effect and refuses later actions.
  private func dismiss() {
    guard !isDismissed else { return }
    isDismissed = true
    core.registry.cancelAll()
  }

  /// Yields and sleeps until `condition` holds or `timeout` passes; returns whether it held.
  private func wait(timeout: Duration, until condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    var attempts = 0
    while !condition() {
      guard clock.now < deadline else { return false }
      attempts += 1
      if attempts < 100 {
        await Task.yield()
      } else {
        try? await Task.sleep(for: .milliseconds(1))
      }
    }
    return true
  }

  /// Runs an assertion closure with the dependencies the reducer sees, so it can compute
  /// expected values from them (`$0.id = uuid()`).
  /// Runs a test's assertion closure the way the store ran the reducer: with the store's
  /// dependencies, stack elements appended under the ids the reducer gave (counting from
  /// `nextStackID`), and `XCTModify` checking for unchanged values only when exhaustive.
  private func withAssertionContext<R>(nextStackID: Int?, _ body: () throws -> R) rethrows -> R {
    var dependencies = core.dependencies
    dependencies.stackElementID = StackElementIDGenerator(
      startingAt: nextStackID ?? core.dependencies.stackElementID.peek().generation)
    return try DependencyValues.$_current.withValue(dependencies) {
      try TestContext.$isAsserting.withValue(true) {
        try XCTModifyLocals.$isExhaustive.withValue(exhaustivity == .on, operation: body)
      }
    }
  }

  private func report(_ message: String, at location: SourceLocation) {
    reportIssue(
      message, fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }

  nonisolated private func reportSkipped(_ message: String, at location: SourceLocation) {
    withExpectedIssue(
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column
    ) {
      reportIssue(
        message, fileID: location.fileID, filePath: location.filePath, line: location.line,
        column: location.column)
    }
  }
}

// MARK: - End of test

extension TestStore {
  nonisolated private func reportUnreceivedActions(at location: SourceLocation) {
    let received = recorder.received
    guard !received.isEmpty else { return }
    reportIssue(
      """
      The store received \(received.count) unexpected \
      action\(received.count == 1 ? "" : "s") by the end of this test: …

      Unhandled actions:
      \(dumpActions(received.map(\.action)))

      To fix this, assert on each with 'receive', or call 'skipReceivedActions()' to ignore them.
      """,
      fileID: location.fileID, filePath: location.filePath, line: location.line,
      column: location.column)
  }

  /// What a non-exhaustive test showing its skipped assertions left at its end, as expected
  /// issues, as TCA shows them: actions received and not asserted, and effects still running.
  nonisolated private func reportSkippedAtEnd(at location: SourceLocation) {
    let received = recorder.received
    if !received.isEmpty {
      reportSkipped(
        "Skipped receiving \(received.count) action(s) by the end of this test:\n\n"
          + dumpActions(received.map(\.action)),
        at: location)
    }
    let running = core.registry.running
    if !running.isEmpty {
      reportSkipped(
        "Skipped \(running.count) in-flight effect(s) at the end of this test, started by:\n\n"
          + running.map { dump($0.entry.origin.action) }.joined(separator: "\n").indented,
        at: location)
    }
  }

  nonisolated private func reportInFlightEffects(
    at location: SourceLocation?, defaultLocation: SourceLocation
  ) {
    for (_, entry) in core.registry.running {
      var location = location ?? defaultLocation
      let how: String
      switch entry.origin.origin {
      case .send(let sendLocation):
        location = sendLocation
        how = "sent"
      case .receive:
        how = "received"
      }
      reportIssue(
        """
        An effect returned for this action is still running. It must complete before the end of \
        the test. …

        \(how.capitalized) action:
        \(dump(entry.origin.action).indented)

        To fix this, make the effect end during the test: advance the test clock it sleeps on, \
        send the action that cancels it, or wait for it with 'await store.finish()'. To leave \
        it running, call 'await store.skipInFlightEffects()' at the end of the test.
        """,
        fileID: location.fileID, filePath: location.filePath, line: location.line,
        column: location.column)
    }
    core.registry.cancelAll()
  }
}

// MARK: - Formatting

private func dump(_ value: some Any) -> String {
  String(customDumping: value)
}

private func dumpActions(_ actions: [some Any]) -> String {
  actions.map { dump($0) }.joined(separator: "\n").indented
}

/// A name for a case key path. Case key paths carry no case names at run time, so this names
/// the enum whose case was expected.
private func describe<Root, Value>(_ keyPath: CaseKeyPath<Root, Value>) -> String {
  "a case of '\(Root.self)' carrying '\(Value.self)'"
}

/// The result of whichever operation finishes first. The other keeps running unobserved until
/// it ends; a sleep is cancelled.
private func firstResult(
  _ first: @escaping @Sendable () async -> Bool,
  _ second: @escaping @Sendable () async -> Bool
) async -> Bool {
  let resumed = LockIsolated(false)
  let tasks = LockIsolated<[Task<Void, Never>]>([])
  return await withCheckedContinuation { continuation in
    let resume: @Sendable (Bool) -> Void = { value in
      let isFirst = resumed.withValue { resumed in
        defer { resumed = true }
        return !resumed
      }
      guard isFirst else { return }
      continuation.resume(returning: value)
      tasks.value.forEach { $0.cancel() }
    }
    tasks.setValue([
      Task { resume(await first()) },
      Task { resume(await second()) },
    ])
  }
}

extension String {
  fileprivate var indented: String {
    split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : "  " + $0 }
      .joined(separator: "\n")
  }
}

/// A − expected / + actual diff of two values, indented, followed by its legend; `fallback` when
/// CustomDump finds no difference to show.
func diffBlock<T>(
  _ expected: T, _ actual: T, fallback: String = "", actualLabel: String = "Actual"
) -> String {
  """
  \(diff(expected, actual, format: .proportional)?.indented ?? fallback)

  (Expected: −, \(actualLabel): +)
  """
}
