/// A store that is its own actor: it runs its reducer on itself rather than on the main actor, so
/// that many stores (one per connection of a server, say) reduce their actions in parallel. It
/// runs on a thread of its own (a ``ThreadExecutor``, shared with other stores), not on Swift's
/// cooperative pool.
///
/// It runs a feature exactly as a ``Store`` does — the same reducers, effects, cancellation and
/// dependencies — with one difference: where a ``Store`` works on the main actor, an
/// `ActorStore` works on itself. Its reducer runs there, and its effects' `send` hops back to it,
/// never through the main actor. From outside, reach it with `await`:
///
/// ```swift
/// let store = ActorStore(initialState: Session.State()) {
///   Session()
/// } withDependencies: {
///   $0.continuousClock = clock
/// }
///
/// await store.send(.start)
/// for await state in await store.states(bufferingPolicy: .bufferingNewest(1)) {
///   render(state)
/// }
/// ```
///
/// Several steps that must happen in one turn, with no other action between them, go in a
/// function that takes the store as an `isolated` parameter:
///
/// ```swift
/// func deliver(_ message: Message, to store: isolated ActorStore<Session.State, Session.Action>) {
///   let before = store.withState(\.received)
///   store.send(.received(message))
///   // No other action can have run in between.
/// }
/// ```
///
/// Actions are processed one at a time: an action sent while another is being reduced is queued
/// behind it, and actions that effects send are processed in the order they are sent. Effects
/// live as long as the store: they hold it weakly, and when it has gone away its running effects
/// are cancelled.
///
/// A feature that needs the main actor (one whose state a UI reads, or whose tests use
/// ``TestStore``) runs in a ``Store``; the same reducer runs in either.
public actor ActorStore<State, Action> {
  private let core: RootCore<State, Action>
  /// Where the store runs.
  private nonisolated let executor: any SerialExecutor

  /// The store runs on its executor (a ``ThreadExecutor`` unless it was given another).
  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  /// Creates a store from an initial state and a reducer.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - executor: Where the reducer runs (its effects run on the global executor and `send` back
  ///     to it): by default the next of the process's ``ThreadExecutor/shared`` executors, so
  ///     stores made one after another reduce in parallel.
  ///   - reducer: The reducer that runs the feature.
  ///   - prepareDependencies: Overrides dependencies for the reducer and every effect it starts,
  ///     for example `$0.continuousClock = clock`.
  @inlinable
  public init<R: Reducer<State, Action>>(
    initialState: @autoclosure @Sendable () -> R.State,
    executor: any SerialExecutor = ThreadExecutor.next(),
    @ReducerBuilder<State, Action> reducer: sending () -> R,
    withDependencies prepareDependencies: sending ((inout DependencyValues) -> Void)? = nil
  ) {
    self.init(
      root: RootCore.prepared(
        initialState: initialState, reducer: reducer, prepareDependencies: prepareDependencies),
      executor: executor)
  }

  @usableFromInline
  init(root: RootCore<State, Action>, executor: any SerialExecutor) {
    self.core = root
    self.executor = executor
  }

  /// The current state.
  public var state: State {
    core.state
  }

  /// Reads a value from the current state.
  ///
  /// ```swift
  /// let count = await store.withState(\.count)
  /// ```
  public func withState<Value>(_ body: (State) -> Value) -> Value {
    body(core.state)
  }

  /// Sends an action to the store: the reducer runs at once, on the store, and any effects start.
  ///
  /// - Returns: A task for the asynchronous effects this action started, to cancel them or to wait
  ///   for them to finish.
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    StoreTask(group: core.send(action, isolation: self))
  }

  private func removeObserver(_ id: Int) {
    core.removeObserver(id)
  }
}

extension ActorStore where State: Sendable {
  /// The store's states as an asynchronous sequence: the current state first, then the state
  /// after each action sent to the store (including the actions it causes synchronously).
  ///
  /// As ``Store/states``: every access makes a new sequence that buffers every state, and it ends
  /// when the store is deallocated, or stop iterating it to stop observing.
  public var states: AsyncStream<State> {
    states(bufferingPolicy: .unbounded)
  }

  /// The store's states as an asynchronous sequence that keeps at most what `bufferingPolicy`
  /// allows for a slow observer.
  ///
  /// An observer that only needs the latest state passes `.bufferingNewest(1)`: memory stays
  /// bounded however far behind it falls, and the last state it reads is always the store's
  /// current one.
  public func states(
    bufferingPolicy: AsyncStream<State>.Continuation.BufferingPolicy
  ) -> AsyncStream<State> {
    stateStream(
      current: core.state, bufferingPolicy: bufferingPolicy,
      addObserver: { core.addObserver($0, onFinish: $1) }
    ) { [weak self] id in
      Task { await self?.removeObserver(id) }
    }
  }
}

/// The actor store type for a reducer: `ActorStoreOf<Session>` is
/// `ActorStore<Session.State, Session.Action>`.
public typealias ActorStoreOf<R: Reducer> = ActorStore<R.State, R.Action>
