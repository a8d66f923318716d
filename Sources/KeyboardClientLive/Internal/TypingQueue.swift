import KeyboardClient

/// Runs a typer's calls one after another, in the order they were made: two texts typed at
/// once must not interleave their keys (an actor alone would let them, at every `await`).
/// Cancelling a caller cancels its own call (which kills its tool), not the ones after it.
actor TypingQueue {
  private var tail: Task<Void, Never>?

  func run(
    _ operation: @escaping @Sendable () async throws(KeyboardClientFailure) -> Void
  ) async throws(KeyboardClientFailure) {
    let previous = tail
    let call = Task<KeyboardClientFailure?, Never> {
      await previous?.value
      do throws(KeyboardClientFailure) {
        try await operation()
        return nil
      } catch {
        return error
      }
    }
    tail = Task { _ = await call.value }
    let failure = await withTaskCancellationHandler {
      await call.value
    } onCancel: {
      call.cancel()
    }
    if let failure { throw failure }
  }
}
