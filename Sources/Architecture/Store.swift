import CasePaths
import Observation

/// A runtime for a feature: it holds the current state, runs the reducer for each action you
/// send, and runs the effects the reducer returns.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) {
///   Counter()
/// } withDependencies: {
///   $0.context = .preview
/// }
///
/// store.send(.incrementButtonTapped)
/// print(store.state.count)  // 1
/// ```
///
/// A host without a UI framework observes the store through ``states``, an asynchronous sequence
/// that starts with the current state and then yields the state after each action:
///
/// ```swift
/// for await state in store.states {
///   renderer.render(state)
/// }
/// ```
///
/// Actions are processed one at a time on the main actor: an action sent while another is being
/// reduced is queued behind it, and actions that effects send are processed in the order they are
/// sent. Effects live as long as the store: when the store, and every store scoped from it, has
/// gone away, its running effects are cancelled.
///
/// When the state is ``ObservableState()``, reading it inside `withObservationTracking` tracks
/// what was read, and its properties can be read straight off the store (`store.count`).
@MainActor
@dynamicMemberLookup
public final class Store<State, Action> {
  private let core: any Core<State, Action>

  /// Creates a store from an initial state and a reducer.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The reducer that runs the feature.
  ///   - prepareDependencies: Overrides dependencies for the reducer and every effect it starts,
  ///     for example `$0.context = .preview`.
  @inlinable
  public convenience init<R: Reducer<State, Action>>(
    initialState: @autoclosure () -> R.State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: ((inout DependencyValues) -> Void)? = nil
  ) {
    self.init(
      root: RootCore.prepared(
        initialState: initialState, reducer: reducer, prepareDependencies: prepareDependencies))
  }

  @usableFromInline
  convenience init(root: RootCore<State, Action>) {
    self.init(core: root)
  }

  init(core: any Core<State, Action>) {
    self.core = core
  }

  /// The current state.
  ///
  /// Inside `withObservationTracking`, reading it (and the ``ObservableState()`` properties read
  /// from it) registers for changes.
  public var state: State {
    core.observation?.access()
    return core.state
  }

  /// Reads a value from the current state.
  ///
  /// ```swift
  /// let count = store.withState(\.count)
  /// ```
  public func withState<Value>(_ body: (State) -> Value) -> Value {
    body(core.state)
  }

  /// Sends an action to the store: the reducer runs at once, and any effects start.
  ///
  /// - Returns: A task for the asynchronous effects this action started, to cancel them or to wait
  ///   for them to finish.
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    StoreTask(group: core.send(action))
  }

  /// Sends an action, as ``send(_:)-(Action)`` does, and returns the task behind the effects it
  /// started (with their descendants), or `nil` when it started none: `await
  /// store.send(.tap)?.value` waits for them. TCA's tests reach for this through
  /// `@_spi(Internals)`; outside them, use the ``StoreTask`` that ``send(_:)-(Action)`` returns.
  @_spi(Internals)
  @_disfavoredOverload
  @discardableResult
  public func send(_ action: Action) -> Task<Void, Never>? {
    core.send(action)?.task
  }

  /// A store that sees only part of this store's state and sends actions embedded into this
  /// store's actions, for handing a child feature its own store.
  ///
  /// ```swift
  /// let counterStore = appStore.scope(state: \.counter, action: \.counter)
  /// counterStore.send(.incrementButtonTapped)  // sends .counter(.incrementButtonTapped)
  /// ```
  public func scope<ChildState, ChildAction>(
    state toChildState: KeyPath<State, ChildState>,
    action fromChildAction: CaseKeyPath<Action, ChildAction>
  ) -> Store<ChildState, ChildAction> {
    let casePath = AnyCasePath(fromChildAction)
    return Store<ChildState, ChildAction>(
      core: ScopedCore(
        base: core,
        toState: { $0[keyPath: toChildState] },
        fromAction: { casePath.embed($0) }
      )
    )
  }
}

extension Store {
  /// A store for a child whose state is optional, such as a presented destination, or `nil`
  /// while the child is absent.
  ///
  /// ```swift
  /// if let addContact = store.scope(
  ///   state: \.destination?.addContact, action: \.destination.addContact
  /// ) {
  ///   addContact.send(.saveButtonTapped)
  /// }
  /// ```
  ///
  /// After the child goes away, the child store keeps showing the child's last state, and
  /// actions sent to it are reported by the parent's `ifLet` as actions for an absent child.
  public func scope<ChildState, ChildAction>(
    state toChildState: KeyPath<State, ChildState?>,
    action fromChildAction: CaseKeyPath<Action, ChildAction>
  ) -> Store<ChildState, ChildAction>? {
    guard let initial = core.state[keyPath: toChildState] else { return nil }
    let casePath = AnyCasePath(fromChildAction)
    let lastState = LastState(initial)
    return Store<ChildState, ChildAction>(
      core: ScopedCore(
        base: core,
        toState: { state in
          guard let child = state[keyPath: toChildState] else { return lastState.value }
          lastState.value = child
          return child
        },
        fromAction: { casePath.embed($0) }
      )
    )
  }
}

/// The last state of an optional child that a scoped store saw.
@MainActor
private final class LastState<State> {
  var value: State
  init(_ value: State) { self.value = value }
}

extension Store where State: Sendable {
  /// The store's states as an asynchronous sequence: the current state first, then the state
  /// after each action sent to the store (including the actions it causes synchronously).
  ///
  /// Every access makes a new sequence, so any number of observers can watch the store. The
  /// sequence buffers every state, so a slow observer still sees each one, in order. It ends when
  /// the store is deallocated, or stop iterating it to stop observing. States are handed to the
  /// observer's task, so they must be `Sendable`.
  ///
  /// ```swift
  /// Task {
  ///   for await state in store.states {
  ///     print(state.transcribedText)
  ///   }
  /// }
  /// ```
  public var states: AsyncStream<State> {
    states(bufferingPolicy: .unbounded)
  }

  /// The store's states as an asynchronous sequence that keeps at most what `bufferingPolicy`
  /// allows for a slow observer.
  ///
  /// An observer that only needs the latest state (a renderer whose state holds everything it
  /// draws) passes `.bufferingNewest(1)`: memory stays bounded however far behind it falls, and
  /// the last state it reads is always the store's current one.
  ///
  /// ```swift
  /// for await state in store.states(bufferingPolicy: .bufferingNewest(1)) {
  ///   render(state)
  /// }
  /// ```
  public func states(
    bufferingPolicy: AsyncStream<State>.Continuation.BufferingPolicy
  ) -> AsyncStream<State> {
    let core = self.core
    return stateStream(
      current: core.state, bufferingPolicy: bufferingPolicy,
      addObserver: { core.addObserver($0, onFinish: $1) }
    ) { [weak core] id in
      Task { @MainActor in
        core?.removeObserver(id)
      }
    }
  }
}

extension Store where State: ObservableState {
  /// Reads a property of the state straight off the store: `store.count`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    state[keyPath: keyPath]
  }
}

extension Store: Observable {}

/// The store type for a reducer: `StoreOf<Counter>` is `Store<Counter.State, Counter.Action>`.
public typealias StoreOf<R: Reducer> = Store<R.State, R.Action>
