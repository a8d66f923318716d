/// Sends actions back into the store from an effect started with
/// ``Effect/run(priority:operation:catch:fileID:filePath:line:column:)``.
///
/// Call it like a function; it hops to the main actor:
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
@MainActor
public struct Send<Action>: Sendable {
  @usableFromInline
  let send: @MainActor @Sendable (Action) -> Void

  /// Creates a send function from a closure; useful to test effects outside a store.
  public init(send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.send = send
  }

  /// Sends an action back into the store, unless the current task is cancelled.
  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    self.send(action)
  }
}
