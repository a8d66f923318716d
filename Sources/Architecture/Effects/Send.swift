/// Sends actions back into the store from an effect started with
/// ``Effect/run(priority:operation:catch:fileID:filePath:line:column:)``.
///
/// Call it like a function, with `await`; it hops to the actor the store runs its reducer on
/// (the main actor for a ``Store``, the store itself for an ``ActorStore``), and returns once
/// the store has reduced the action:
///
/// ```swift
/// return .run { send in
///   for await words in await speechClient.recognize() {
///     await send(.transcribed(words))
///   }
/// }
/// ```
///
/// Once the effect is cancelled, sending does nothing, so a cancelled effect can never change
/// state.
public struct Send<Action>: Sendable {
  /// The actor that `deliver` runs on, held weakly: an effect keeps neither its store nor the
  /// store's actor alive.
  @usableFromInline
  weak let actor: (any Actor)?
  /// Hands an action to the store, on `actor`.
  @usableFromInline
  let deliver: @Sendable (sending Action, isolated any Actor) -> Void

  /// Creates a send function from a closure on the main actor; useful to test effects outside a
  /// store.
  public init(send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.actor = MainActor.shared
    self.deliver = { action, _ in
      MainActor.assumeIsolated { send(action) }
    }
  }

  /// Creates a send function that hands actions to `deliver` on `actor`.
  @usableFromInline
  init(
    actor: (any Actor)?,
    deliver: @escaping @Sendable (sending Action, isolated any Actor) -> Void
  ) {
    self.actor = actor
    self.deliver = deliver
  }

  /// Sends an action back into the store, unless the current task is cancelled, and returns once
  /// the store has reduced it.
  nonisolated(nonsending)
    public func callAsFunction(_ action: sending Action) async
  {
    guard !Task.isCancelled, let actor else { return }
    await deliver(action, actor)
  }

  /// A send function that transforms each action and hands it to this one, on the same actor.
  @usableFromInline
  func map<Child>(_ transform: @escaping @Sendable (Child) -> Action) -> Send<Child> {
    let deliver = self.deliver
    return Send<Child>(actor: actor) { action, isolation in
      deliver(transform(action), isolation)
    }
  }
}
