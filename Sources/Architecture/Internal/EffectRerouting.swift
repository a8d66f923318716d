extension Effect {
  /// This effect, rebuilt so that every action it would send is handed to `route`, which decides
  /// when (and whether) to send it. The effect ends when its work has ended and every action has
  /// been routed.
  ///
  /// Actions are routed one at a time, in the order they were sent. Cancellation, merging and
  /// concatenation keep their shape; only `.send` and `.run` change.
  func rerouted(
    _ route: @escaping @Sendable (Action, Send<Action>) async -> Void
  ) -> Self where Action: Sendable {
    switch operation {
    case .none, .cancel:
      return self
    case .send(let action):
      return Self(operation: .run(nil) { send in await route(action, send) })
    case .run(let priority, let work):
      return Self(
        operation: .run(priority) { send in
          let (actions, continuation) = AsyncStream<Action>.makeStream()
          await withTaskGroup(of: Void.self) { group in
            group.addTask {
              // On the store's actor, as the effect's own actions would be.
              await work(Send(actor: send.actor) { action, _ in continuation.yield(action) })
              continuation.finish()
            }
            for await action in actions {
              await route(action, send)
            }
          }
        }
      )
    case .merge(let effects):
      return Self(operation: .merge(effects.map { $0.rerouted(route) }))
    case .concatenate(let effects):
      return Self(operation: .concatenate(effects.map { $0.rerouted(route) }))
    case .cancellable(let id, let cancelInFlight, let effect):
      return Self(
        operation: .cancellable(id, cancelInFlight: cancelInFlight, effect.rerouted(route)))
    }
  }
}
