extension Effect where Action: Sendable {
  /// The actions this effect sends, run outside any store: TCA's `@_spi(Internals)` entry point
  /// for testing an effect on its own.
  ///
  /// ```swift
  /// let effect = Effect.send(1).debounce(id: ID(), for: 1, scheduler: mainQueue)
  /// for await action in effect.actions { … }
  /// ```
  ///
  /// Iterating starts the effect; the stream finishes when all of its work has ended (at once for
  /// ``none``), and ending the iteration early (or cancelling the iterating task) cancels that
  /// work. Merged effects run at the same time and concatenated ones one after another, as in a
  /// store.
  ///
  /// Cancellation ids are shared by every effect run this way in the process, as TCA's are: an
  /// effect debounced under an id cancels one that another stream started under the same id, and
  /// ``cancel(id:)`` in one stream reaches the others. They never reach a store's effects, whose
  /// ids are the store's own.
  @_spi(Internals)
  public var actions: AsyncStream<Action> {
    if case .none = operation {
      return AsyncStream { $0.finish() }
    }
    return AsyncStream { continuation in
      let task = Task {
        await self.runOutsideStores(send: Send { continuation.yield($0) })
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// Runs this effect in the current task, without a store, and returns when all of its work has
  /// ended.
  private func runOutsideStores(send: Send<Action>) async {
    switch operation {
    case .none:
      return

    case .send(let action):
      await send(action)

    case .run(let priority, let operation):
      await withTaskGroup(of: Void.self) { group in
        group.addTask(priority: priority) {
          await EffectContext.$canceller.withValue(effectsOutsideStores) {
            await operation(send)
          }
        }
      }

    case .merge(let effects):
      await withTaskGroup(of: Void.self) { group in
        for effect in effects {
          group.addTask { await effect.runOutsideStores(send: send) }
        }
      }

    case .concatenate(let effects):
      for effect in effects {
        // A cancelled concatenation starts nothing more, as in a store.
        guard !Task.isCancelled else { return }
        await effect.runOutsideStores(send: send)
      }

    case .cancellable(let id, let cancelInFlight, let effect):
      let registry = effectsOutsideStores
      if cancelInFlight {
        registry.cancel(id: id)
      }
      let key = registry.register(cancelIDs: [id], origin: ())
      let task = Task {
        await effect.runOutsideStores(send: send)
        registry.remove(key)
      }
      registry.attach(task, to: key)
      await withTaskCancellationHandler {
        await task.value
      } onCancel: {
        task.cancel()
      }

    case .cancel(let id):
      effectsOutsideStores.cancel(id: id)
    }
  }
}

/// The effects that ``Effect/actions`` runs, with their cancellation ids, for the whole process.
let effectsOutsideStores = EffectRegistry<Void>()
