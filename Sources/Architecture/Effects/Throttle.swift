extension Effect where Action: Sendable {
  /// Lets at most one action through per `interval` of `scheduler`'s time for effects throttled
  /// under `id`.
  ///
  /// The first action goes through as soon as the scheduler runs it. An action that comes within
  /// `interval` of the last one sent waits until the interval has passed, and then the newest
  /// action (`latest: true`) or the oldest one held back since the last send (`latest: false`) is
  /// sent. Each new throttled effect under `id` cancels the one waiting before it.
  ///
  /// ```swift
  /// case .tap(let value):
  ///   return .send(.throttledResponse(value))
  ///     .throttle(id: CancelID.tap, for: .seconds(1), scheduler: mainQueue, latest: true)
  /// ```
  ///
  /// Actions reach the store through `scheduler`, as a Combine `receive(on:)` delivers them: with
  /// a ``TestScheduler``, even the first one arrives when the test advances it
  /// (`await mainQueue.advance()`). What the throttle remembers belongs to the store, like its
  /// cancellation ids.
  ///
  /// - Parameters:
  ///   - id: The id that effects are throttled (and cancelled) under.
  ///   - interval: The least time between two actions sent.
  ///   - scheduler: The scheduler whose time counts, usually `@Dependency(\.mainQueue)`.
  ///   - latest: Whether to send the newest action held back (`true`) or the oldest (`false`).
  public func throttle<S: Scheduler & Sendable>(
    id: some Hashable & Sendable,
    for interval: S.SchedulerTimeType.Stride,
    scheduler: S,
    latest: Bool
  ) -> Self where S.SchedulerTimeType.Stride: Sendable {
    switch operation {
    case .none:
      return .none
    default:
      let throttleID = _CancelID(id)
      return rerouted { action, send in
        var id = throttleID
        id.path = EffectContext.navigationPath
        do {
          // Delivered through the scheduler first, as Combine's `receive(on:)` does.
          try await scheduler.sleep(for: .zero)
          let memory = ThrottleMemory.current
          switch memory.decide(
            action, id: id, now: scheduler.now, interval: interval, latest: latest)
          {
          case .sendNow(let action):
            await send(action)
          case .sendLater(let action, let delay):
            try await scheduler.sleep(for: delay)
            memory.didSend(id: id, at: scheduler.now)
            await send(action)
          }
        } catch {
          // Cancelled: a newer effect under `id` (or `.cancel(id:)`) took over.
        }
      }
      .cancellable(id: id, cancelInFlight: true)
    }
  }
}
