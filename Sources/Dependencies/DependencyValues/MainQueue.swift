import Dispatch

extension DependencyValues {
  /// The main dispatch queue as a scheduler, for code written against Combine schedulers.
  ///
  /// ```swift
  /// @Dependency(\.mainQueue) var mainQueue
  /// try await mainQueue.sleep(for: .seconds(1))
  /// // in a test:
  /// let mainQueue = DispatchQueue.test
  /// withDependencies { $0.mainQueue = mainQueue.eraseToAnyScheduler() } operation: { ... }
  /// await mainQueue.advance(by: .seconds(1))
  /// ```
  ///
  /// Live and preview: `DispatchQueue.main`. Test: an unimplemented scheduler that reports an
  /// issue when used without an override. New code can use `\.continuousClock` instead.
  public var mainQueue: AnySchedulerOf<DispatchQueue> {
    get { self[MainQueueKey.self] }
    set { self[MainQueueKey.self] = newValue }
  }
}

private enum MainQueueKey: DependencyKey {
  static let liveValue = AnySchedulerOf<DispatchQueue>.main
  static var testValue: AnySchedulerOf<DispatchQueue> {
    .unimplemented(#"@Dependency(\.mainQueue)"#)
  }
}
