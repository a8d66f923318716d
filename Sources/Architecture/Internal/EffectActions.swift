extension Effect where Action: Sendable {
  /// The actions this effect sends, run outside any store: TCA's `@_spi(Internals)` entry point
  /// for testing an effect on its own.
  ///
  /// ```swift
  /// let effect = Effect.send(1).debounce(id: ID(), for: 1, scheduler: mainQueue)
  /// for await action in effect.actions { … }
  /// ```
  ///
  /// Reading the property starts the effect, as upstream's does: what the effect does
  /// synchronously (`.send`, cancelling in flight, `.cancel(id:)`) happens before it returns, and
  /// its asynchronous work starts in tasks. The stream finishes when all of that work has ended
  /// (at once for ``none``), and ending the iteration early (or cancelling the iterating task)
  /// cancels the work. Merged effects run at the same time and concatenated ones one after
  /// another, as in a store.
  ///
  /// Cancellation ids are shared by every effect run this way in the process, as TCA's are: an
  /// effect debounced under an id cancels one that another stream started under the same id, and
  /// ``cancel(id:)`` in one stream reaches the others. They never reach a store's effects, whose
  /// ids are the store's own.
  @_spi(Internals)
  public var actions: AsyncStream<Action> {
    AsyncStream { continuation in
      let tasks = startOutsideStores(cancelIDs: []) { continuation.yield($0) }
      guard !tasks.isEmpty else {
        continuation.finish()
        return
      }
      let waiter = Task {
        await awaitAll(tasks)
        continuation.finish()
      }
      continuation.onTermination = { _ in waiter.cancel() }
    }
  }

  /// Starts this effect without a store: sends its synchronous actions to `yield` now, and
  /// returns the tasks of its asynchronous work, registered under `cancelIDs` and the ids the
  /// effect adds.
  private func startOutsideStores(
    cancelIDs: [_CancelID],
    yield: @escaping @Sendable (Action) -> Void
  ) -> [Task<Void, Never>] {
    let registry = effectsOutsideStores
    switch operation {
    case .none:
      return []

    case .send(let action):
      yield(action)
      return []

    case .run(let priority, let operation):
      let key = registry.register(cancelIDs: cancelIDs, origin: ())
      let task = Task(priority: priority) {
        await EffectContext.$canceller.withValue(registry) {
          await operation(Send { yield($0) })
        }
        registry.remove(key)
      }
      registry.attach(task, to: key)
      return [task]

    case .merge(let effects):
      return effects.flatMap { $0.startOutsideStores(cancelIDs: cancelIDs, yield: yield) }

    case .concatenate(let effects):
      var remaining = effects[...]
      while let first = remaining.popFirst() {
        let firstTasks = first.startOutsideStores(cancelIDs: cancelIDs, yield: yield)
        guard !firstTasks.isEmpty else { continue }
        // The first effect runs asynchronously: start the rest once it has finished, unless the
        // concatenation was cancelled in the meantime.
        let rest = Self(operation: .concatenate(Array(remaining)))
        let key = registry.register(cancelIDs: cancelIDs, origin: ())
        let task = Task {
          await awaitAll(firstTasks)
          // The registry's flag, not only the task's: cancelling the first effect's task before
          // this one (from another thread) must not let the rest start.
          if !Task.isCancelled, !registry.isCancelled(key) {
            await awaitAll(rest.startOutsideStores(cancelIDs: cancelIDs, yield: yield))
          }
          registry.remove(key)
        }
        registry.attach(task, to: key)
        return [task]
      }
      return []

    case .cancellable(let id, let cancelInFlight, let effect):
      if cancelInFlight {
        registry.cancel(id: id)
      }
      return effect.startOutsideStores(cancelIDs: cancelIDs + [id], yield: yield)

    case .cancel(let id):
      registry.cancel(id: id)
      return []
    }
  }
}

/// Waits for every task, cancelling them all if the waiting task is cancelled (a store's
/// concatenations and ``Effect/actions`` alike).
func awaitAll(_ tasks: [Task<Void, Never>]) async {
  await withTaskCancellationHandler {
    for task in tasks {
      await task.value
    }
  } onCancel: {
    for task in tasks {
      task.cancel()
    }
  }
}

/// The effects that ``Effect/actions`` runs, with their cancellation ids, for the whole process.
let effectsOutsideStores = EffectRegistry<Void>()
