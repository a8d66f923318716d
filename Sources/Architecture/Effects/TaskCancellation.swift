extension Task where Success == Never, Failure == Never {
  /// Cancels the effects that were made cancellable under `id`, from inside an effect.
  ///
  /// ```swift
  /// return .run { send in
  ///   await send(.stopped)
  ///   Task.cancel(id: CancelID.timer)
  /// }
  /// ```
  ///
  /// Like ``Effect/cancel(id:)``, it reaches the effects of the store (and, inside a child
  /// feature, of the child) that runs the calling effect. Outside an effect there is no store to
  /// cancel in, and it does nothing.
  public static func cancel(id: some Hashable & Sendable) {
    guard let canceller = EffectContext.canceller else { return }
    var cancelID = _CancelID(id)
    cancelID.path = EffectContext.navigationPath
    canceller.cancel(id: cancelID)
  }
}
