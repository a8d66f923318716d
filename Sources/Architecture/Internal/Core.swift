/// What a ``Store`` forwards to: the root core that owns state and runs effects, or a scoped view
/// of another core; all on the main actor.
@MainActor
protocol Core<State, Action>: AnyObject, Sendable {
  associatedtype State
  associatedtype Action

  var state: State { get }
  /// Tells `withObservationTracking` about state replacements; `nil` when the root state is not
  /// ``ObservableState``.
  var observation: StoreObservation? { get }
  func send(_ action: Action) -> EffectGroup?
  func addObserver(
    _ observer: @escaping (State) -> Void, onFinish: @escaping @Sendable () -> Void
  )
    -> Int
  func removeObserver(_ id: Int)
}

/// A core that reads a part of another core's state and embeds its actions into the other's.
@MainActor
final class ScopedCore<BaseState, BaseAction, State, Action>: Core {
  let base: any Core<BaseState, BaseAction>
  let toState: (BaseState) -> State
  let fromAction: (Action) -> BaseAction

  init(
    base: any Core<BaseState, BaseAction>,
    toState: @escaping (BaseState) -> State,
    fromAction: @escaping (Action) -> BaseAction
  ) {
    self.base = base
    self.toState = toState
    self.fromAction = fromAction
  }

  var state: State {
    toState(base.state)
  }

  var observation: StoreObservation? {
    base.observation
  }

  func send(_ action: Action) -> EffectGroup? {
    base.send(fromAction(action))
  }

  func addObserver(
    _ observer: @escaping (State) -> Void, onFinish: @escaping @Sendable () -> Void
  )
    -> Int
  {
    let toState = self.toState
    return base.addObserver({ observer(toState($0)) }, onFinish: onFinish)
  }

  func removeObserver(_ id: Int) {
    base.removeObserver(id)
  }
}
