import ConcurrencyExtras

extension Effect {
  /// Runs this effect only once `dueTime` has passed on `scheduler` without another effect being
  /// debounced under the same `id`: each new one cancels the one waiting (or running) before it.
  ///
  /// The usual debounced search, as TCA 1.x features write it:
  ///
  /// ```swift
  /// case .searchQueryChanged(let query):
  ///   state.searchQuery = query
  ///   return .run { send in
  ///     await send(.searchResponse(Result { try await weatherClient.search(query) }))
  ///   }
  ///   .debounce(id: CancelID.search, for: .milliseconds(300), scheduler: mainQueue)
  /// ```
  ///
  /// Nothing of this effect runs before the time has passed. In a test, advance a
  /// ``TestScheduler`` by `dueTime` to let it through. ``cancel(id:)`` with the same `id` stops it
  /// too. New code can write the same with a clock: `try await clock.sleep(for:)` at the start of
  /// a `.run`, made ``cancellable(id:cancelInFlight:)`` with `cancelInFlight: true`.
  ///
  /// - Parameters:
  ///   - id: The id that later effects debounce (and cancel) under.
  ///   - dueTime: How long to wait, in the scheduler's time.
  ///   - scheduler: The scheduler to wait on, usually `@Dependency(\.mainQueue)`.
  ///   - options: Options for the scheduler.
  public func debounce<S: Scheduler>(
    id: some Hashable & Sendable,
    for dueTime: S.SchedulerTimeType.Stride,
    scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Self {
    switch operation {
    case .none:
      return .none
    default:
      // Schedulers are made to be used from any thread, as Combine's are, but a generic one is
      // not known to be `Sendable`.
      let wait = UncheckedSendable((scheduler: scheduler, dueTime: dueTime, options: options))
      return Self.concatenate(
        Self(
          operation: .run(nil) { _ in
            try? await wait.value.scheduler.sleep(
              for: wait.value.dueTime, options: wait.value.options)
          }
        ),
        self
      )
      .cancellable(id: id, cancelInFlight: true)
    }
  }
}
