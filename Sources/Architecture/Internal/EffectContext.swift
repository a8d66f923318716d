/// Cancels a store's effects by id; the store's effect registry.
protocol EffectCanceller: Sendable {
  func cancel(id: _CancelID)
  /// What `throttle(id:for:scheduler:latest:)` remembers for the store's ids.
  var throttles: ThrottleMemory { get }
}

/// What an effect's task knows about where it runs, for `Task.cancel(id:)`.
enum EffectContext {
  /// The registry of the store running the current effect.
  @TaskLocal static var canceller: (any EffectCanceller)?

  /// The children (innermost first, like a scoped cancellation id's path) whose effect this is.
  @TaskLocal static var navigationPath: [_NavigationID] = []
}
