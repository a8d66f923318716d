import Architecture

/// A store's newest states, through a stream of the host's own that it can end at once (an
/// insisting Ctrl-C) without waiting for the store.
///
/// Each state holds everything a renderer needs (a transcript's finished utterances are shared,
/// not copied), so a renderer that falls behind needs only the newest one.
@MainActor
final class NewestStates<State: Sendable> {
  let stream: AsyncStream<State>
  private let continuation: AsyncStream<State>.Continuation
  private let forwarding: Task<Void, Never>

  init<Action>(of store: Store<State, Action>) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: State.self, bufferingPolicy: .bufferingNewest(1))
    self.stream = stream
    self.continuation = continuation
    let states = store.states(bufferingPolicy: .bufferingNewest(1))
    forwarding = Task {
      for await state in states { continuation.yield(state) }
      continuation.finish()
    }
  }

  /// Ends the stream: the host's loop over it stops.
  func finish() {
    continuation.finish()
  }

  isolated deinit {
    forwarding.cancel()
  }
}
