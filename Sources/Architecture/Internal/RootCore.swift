import ConcurrencyExtras
import CustomDump
import IssueReporting

/// The engine behind a store: owns the state, runs the reducer, starts and tracks effects, and
/// tells observers about new state.
///
/// A core belongs to one actor, its store's: the main actor for a ``Store`` or a ``TestStore``,
/// the store itself for an ``ActorStore``. It is touched only there: the methods that reduce
/// take that actor as their `isolation`, and the `Send`s and tasks it makes for effects go back
/// to it before they touch the core. That is what makes it `@unchecked Sendable`: effects hold
/// it (weakly) from other tasks, but only reach into it on its actor.
@usableFromInline
final class RootCore<State, Action>: @unchecked Sendable {
  private(set) var state: State
  /// Runs the reducer: a closure made where the reducer's type is known, so that it calls the
  /// reducer's specialized code.
  let reduce: (inout State, Action) -> Effect<Action>
  var dependencies: DependencyValues
  let registry = EffectRegistry<Action>()
  /// Where effects run their nonisolated code; `nil` for the global concurrent executor.
  let taskExecutor: (any TaskExecutor)?
  /// What `@Dependency(\.dismiss)` does in an effect that no presentation encloses: dismiss the
  /// store itself (a root `TestStore`); `nil` to report that the feature is not presented.
  var dismissal: (@MainActor @Sendable () -> Void)?
  /// Counts the effects whose tasks have not begun running yet, for a `TestStore` to wait on;
  /// `nil` for a `Store`, which never waits.
  var effectStarts: EffectStarts?
  /// Tells observers of `store.state` when the state is replaced by another value; `nil` unless
  /// the state is ``ObservableState`` (its properties tell their own observers).
  let observation: StoreObservation?
  private let stateIdentity: ((State) -> ObservableStateID)?

  private var bufferedActions: [Action] = []
  private var isSending = false
  private var nextObserverID = 0
  private var observers: [Int: (State) -> Void] = [:]
  // Written only on the core's actor; read in `deinit`, when nothing else can reach the core.
  nonisolated(unsafe) private var finishers: [Int: @Sendable () -> Void] = [:]

  convenience init(
    initialState: State,
    reducer: some Reducer<State, Action>,
    dependencies: DependencyValues,
    taskExecutor: (any TaskExecutor)? = nil
  ) {
    self.init(
      initialState: initialState,
      reduce: { reducer.reduce(into: &$0, action: $1) },
      dependencies: dependencies,
      taskExecutor: taskExecutor)
  }

  @usableFromInline
  init(
    initialState: State,
    reduce: @escaping (inout State, Action) -> Effect<Action>,
    dependencies: DependencyValues,
    taskExecutor: (any TaskExecutor)? = nil
  ) {
    self.state = initialState
    self.reduce = reduce
    self.dependencies = dependencies
    self.taskExecutor = taskExecutor
    self.stateIdentity = observableStateIdentity(State.self)
    self.observation = stateIdentity == nil ? nil : StoreObservation()
  }

  deinit {
    registry.cancelAll()
    for finish in finishers.values {
      finish()
    }
  }

  /// Reduces `action`, and every action it causes synchronously, then notifies observers once.
  ///
  /// An action sent while another is being reduced (by an observer or a `.send` effect) is
  /// queued and reduced after it, never re-entrantly. Returns a task covering the asynchronous
  /// effects started, or `nil` if there are none (or the action was queued).
  ///
  /// `isolation` is the core's actor: the caller is on it, and the effects' `send`s and
  /// concatenations come back to it.
  func send(_ action: Action, isolation: isolated any Actor) -> EffectGroup? {
    bufferedActions.append(action)
    guard !isSending else { return nil }
    isSending = true
    let oldIdentity = stateIdentity?(state)
    var tasks: [Task<Void, Never>] = []
    var group: EffectGroup?
    var index = 0
    while index < bufferedActions.count {
      let action = bufferedActions[index]
      index += 1
      let effect = DependencyValues.$_current.withValue(dependencies) {
        reduce(&state, action)
      }
      start(
        effect, cancelIDs: [], origin: action, group: &group, tasks: &tasks,
        isolation: isolation)
    }
    bufferedActions.removeAll(keepingCapacity: true)
    isSending = false
    if let oldIdentity, let stateIdentity, oldIdentity != stateIdentity(state) {
      observation?.stateDidChange()
    }
    notifyObservers()
    group?.start(tasks)
    return group
  }

  /// Starts an effect. Synchronous parts (`.send`, `.cancel`) happen now; asynchronous parts are
  /// appended to `tasks`.
  ///
  /// `group` collects the tasks of this send and of the effects that its effects' actions start
  /// (their descendants); it is created on the first asynchronous effect.
  private func start(
    _ effect: Effect<Action>,
    cancelIDs: [_CancelID],
    origin: Action,
    group: inout EffectGroup?,
    tasks: inout [Task<Void, Never>],
    isolation: isolated any Actor
  ) {
    switch effect.operation {
    case .none:
      break

    case .send(let action):
      if isSending {
        bufferedActions.append(action)
      } else {
        _ = send(action, isolation: isolation)
      }

    case .run(let priority, let operation):
      let key = registry.register(cancelIDs: cancelIDs, origin: origin)
      let descendants = group ?? EffectGroup()
      group = descendants
      let completion = EffectCompletion()
      // Read only on the core's actor, where the action was reduced.
      let origin = UncheckedSendable(origin)
      let send = Send<Action>(actor: isolation) { [weak self] action, isolation in
        guard !completion.isCompleted else {
          reportActionFromCompletedEffect(action, origin: origin.value)
          return
        }
        guard let sent = self?.send(action, isolation: isolation) else { return }
        descendants.append(sent)
      }
      effectStarts?.willStart()
      let task = Self.spawn(
        executor: taskExecutor, priority: priority, registry: registry, key: key,
        dismissal: dismissal, starts: effectStarts
      ) {
        await operation(send)
        completion.complete()
      }
      registry.attach(task, to: key)
      tasks.append(task)

    case .merge(let effects):
      for effect in effects {
        start(
          effect, cancelIDs: cancelIDs, origin: origin, group: &group, tasks: &tasks,
          isolation: isolation)
      }

    case .concatenate(let effects):
      var remaining = effects[...]
      while let first = remaining.popFirst() {
        var firstTasks: [Task<Void, Never>] = []
        start(
          first, cancelIDs: cancelIDs, origin: origin, group: &group, tasks: &firstTasks,
          isolation: isolation)
        guard !firstTasks.isEmpty else { continue }
        // The first effect runs asynchronously: start the rest once it has finished.
        let rest = Effect<Action>(operation: .concatenate(Array(remaining)))
        let key = registry.register(cancelIDs: cancelIDs, origin: origin)
        let task = Self.spawnRest(
          rest, after: firstTasks, core: self, key: key, cancelIDs: cancelIDs,
          origin: UncheckedSendable(origin), group: group, isolation: isolation)
        registry.attach(task, to: key)
        tasks.append(task)
        return
      }

    case .cancellable(let id, let cancelInFlight, let effect):
      if cancelInFlight {
        registry.cancel(id: id)
      }
      start(
        effect, cancelIDs: cancelIDs + [id], origin: origin, group: &group, tasks: &tasks,
        isolation: isolation)

    case .cancel(let id):
      registry.cancel(id: id)
    }
  }

  /// Creates the task that starts the rest of a concatenation on the core's actor once `first`
  /// has finished, unless it was cancelled meanwhile or the core has gone.
  ///
  /// The task holds the core and its actor weakly, as a `Send` does: a concatenation keeps
  /// neither its store nor the store's actor alive.
  private nonisolated static func spawnRest(
    _ rest: Effect<Action>,
    after first: [Task<Void, Never>],
    core: RootCore,
    key: Int,
    cancelIDs: [_CancelID],
    origin: UncheckedSendable<Action>,
    group: EffectGroup?,
    isolation: any Actor
  ) -> Task<Void, Never> {
    let registry = core.registry
    return Task { [weak core, weak isolation] in
      defer { registry.remove(key) }
      await awaitAll(first)
      guard !Task.isCancelled, !registry.isCancelled(key), let core, let isolation else { return }
      let restTasks = await core.startRest(
        rest, cancelIDs: cancelIDs, origin: origin, group: group, isolation: isolation)
      await awaitAll(restTasks)
    }
  }

  /// Starts the rest of a concatenation, on the core's actor; returns its tasks.
  private func startRest(
    _ rest: Effect<Action>,
    cancelIDs: [_CancelID],
    origin: UncheckedSendable<Action>,
    group: EffectGroup?,
    isolation: isolated any Actor
  ) -> [Task<Void, Never>] {
    var restTasks: [Task<Void, Never>] = []
    var group = group
    start(
      rest, cancelIDs: cancelIDs, origin: origin.value, group: &group, tasks: &restTasks,
      isolation: isolation)
    return restTasks
  }

  /// Creates an effect's task outside the core's actor, so its nonisolated code runs on
  /// `executor` (or the global executor) rather than inheriting the caller's isolation.
  private nonisolated static func spawn(
    executor: (any TaskExecutor)?,
    priority: TaskPriority?,
    registry: EffectRegistry<Action>,
    key: Int,
    dismissal: (@MainActor @Sendable () -> Void)?,
    starts: EffectStarts?,
    operation: @escaping @Sendable () async -> Void
  ) -> Task<Void, Never> {
    Task(executorPreference: executor, priority: priority) {
      starts?.didStart()
      await EffectContext.$canceller.withValue(registry) {
        guard let dismissal else { return await operation() }
        // The outermost presentation: a presented child's effects set their own inside it.
        await PresentationContext.$dismiss.withValue({ await dismissal() }) {
          await operation()
        }
      }
      registry.remove(key)
    }
  }

  /// Calls `observer` with the state after each send, on the core's actor, until it is removed;
  /// `onFinish` runs when the core goes away.
  func addObserver(
    _ observer: @escaping (State) -> Void,
    onFinish: @escaping @Sendable () -> Void
  ) -> Int {
    nextObserverID += 1
    observers[nextObserverID] = observer
    finishers[nextObserverID] = onFinish
    return nextObserverID
  }

  func removeObserver(_ id: Int) {
    observers[id] = nil
    finishers[id] = nil
  }

  private func notifyObservers() {
    guard !observers.isEmpty else { return }
    for id in observers.keys.sorted() {
      observers[id]?(state)
    }
  }
}

// In an extension, so that the main actor of `Core` is not inferred for the whole class.
extension RootCore: Core {
  /// Sends `action` from the main actor, the actor of a ``Store``'s core.
  @MainActor
  func send(_ action: Action) -> EffectGroup? {
    send(action, isolation: MainActor.shared)
  }
}

extension RootCore {
  /// A core for the reducer that `reducer` makes, starting from the state that `initialState`
  /// makes, both made with the dependencies that `prepareDependencies` overrides, which the
  /// reducer and every effect it starts then run with.
  // Inlinable, so that the closure below is made where `R` is known and calls its specialized
  // `reduce`, rather than reaching a generic reducer through an existential into unspecialized
  // code that looks up generic metadata on every action.
  @inlinable
  static func prepared<R: Reducer<State, Action>>(
    initialState: () -> R.State,
    reducer: () -> R,
    prepareDependencies: ((inout DependencyValues) -> Void)?
  ) -> RootCore {
    let (initialState, reducer, dependencies) = withDependencies {
      prepareDependencies?(&$0)
    } operation: {
      (initialState(), reducer(), DependencyValues._current)
    }
    return RootCore(
      initialState: initialState,
      reduce: { reducer.reduce(into: &$0, action: $1) },
      dependencies: dependencies)
  }
}

/// A stream of a store's states, as ``Store/states(bufferingPolicy:)`` and
/// ``ActorStore/states(bufferingPolicy:)`` describe it: `current` first, then each state the
/// observer that `addObserver` registers is given. When the stream ends, `removeObserver` gets
/// the observer's id (from any task).
func stateStream<State: Sendable>(
  current: State,
  bufferingPolicy: AsyncStream<State>.Continuation.BufferingPolicy,
  addObserver: (
    _ observer: @escaping (State) -> Void, _ onFinish: @escaping @Sendable () -> Void
  ) -> Int,
  removeObserver: @escaping @Sendable (Int) -> Void
) -> AsyncStream<State> {
  let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: bufferingPolicy)
  continuation.yield(current)
  let id = addObserver({ continuation.yield($0) }, { continuation.finish() })
  continuation.onTermination = { _ in removeObserver(id) }
  return stream
}

/// The identity of a state value when `State` is ``ObservableState``.
private func observableStateIdentity<State>(
  _ type: State.Type
) -> ((State) -> ObservableStateID)? {
  func open<Observed: ObservableState>(_: Observed.Type) -> (State) -> ObservableStateID {
    { ($0 as! Observed)._$id }
  }
  guard let observed = State.self as? any ObservableState.Type else { return nil }
  return open(observed)
}

/// Reports an action sent through an effect's `send` after the effect had finished, for example
/// from an unstructured task the effect started and did not wait for.
func reportActionFromCompletedEffect<Action>(_ action: Action, origin: Any) {
  reportIssue(
    """
    An effect sent an action after it had finished: …

      Action:
    \(String(customDumping: action).indentedForIssue)

      The effect was started by:
    \(String(customDumping: origin).indentedForIssue)

    The action was not processed. An effect's 'send' works only while the effect runs: await the \
    work that sends (instead of starting an unstructured 'Task' inside the effect), or return a \
    longer-running effect.
    """
  )
}
