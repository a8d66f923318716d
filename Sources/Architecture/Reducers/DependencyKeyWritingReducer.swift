extension Reducer {
  /// Overrides a dependency for this reducer and the effects it returns.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   Scope(state: \.onboarding, action: \.onboarding) {
  ///     Onboarding()
  ///       .dependency(\.speechClient, .lorem)
  ///   }
  /// }
  /// ```
  ///
  /// When the same dependency is overridden at several levels, the innermost override wins.
  @inlinable
  public func dependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value>,
    _ value: Value
  ) -> _DependencyKeyWritingReducer<Self> {
    nonisolated(unsafe) let value = value
    return _DependencyKeyWritingReducer(base: self) { $0[keyPath: keyPath] = value }
  }

  /// Overrides a dependency that is its own key (registered under its type) for this reducer
  /// and the effects it returns.
  ///
  /// ```swift
  /// Feature()
  ///   .dependency(APIClient(fetch: { _ in "stub" }))
  /// ```
  ///
  /// When the same dependency is overridden at several levels, the innermost override wins.
  @inlinable
  public func dependency<Value: TestDependencyKey>(
    _ value: Value
  ) -> _DependencyKeyWritingReducer<Self> where Value.Value == Value {
    _DependencyKeyWritingReducer(base: self) { $0[Value.self] = value }
  }

  /// Changes a dependency for this reducer and the effects it returns, starting from the value
  /// in force around it.
  ///
  /// ```swift
  /// Feature()
  ///   .transformDependency(\.speechClient) { client in
  ///     client.requestAuthorization = { .authorized }
  ///   }
  /// ```
  @inlinable
  public func transformDependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value>,
    transform: @escaping (_ dependency: inout Value) -> Void
  ) -> _DependencyKeyWritingReducer<Self> {
    _DependencyKeyWritingReducer(base: self) { transform(&$0[keyPath: keyPath]) }
  }
}

/// The reducer built by ``Reducer/dependency(_:_:)``, ``Reducer/dependency(_:)`` and
/// ``Reducer/transformDependency(_:transform:)``.
public struct _DependencyKeyWritingReducer<Base: Reducer>: Reducer {
  @usableFromInline
  let base: Base

  @usableFromInline
  let update: (inout DependencyValues) -> Void

  @usableFromInline
  init(base: Base, update: @escaping (inout DependencyValues) -> Void) {
    self.base = base
    self.update = update
  }

  /// Runs the base reducer with the overrides applied to the dependencies in force.
  ///
  /// The overrides are applied in `withDependencies`, so writing one is not a read: writing
  /// through a key path first gets the current value, and a key whose test value reports when
  /// read (`\.calendar`, an unimplemented client) must not report then, as in `withDependencies`.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    withDependencies(update) {
      base.reduce(into: &state, action: action)
    }
  }

  /// Overriding again composes the overrides into one reducer; the inner one still wins.
  @inlinable
  public func dependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value>,
    _ value: Value
  ) -> Self {
    nonisolated(unsafe) let value = value
    let inner = update
    return Self(base: base) {
      $0[keyPath: keyPath] = value
      inner(&$0)
    }
  }

  /// Overriding again composes the overrides into one reducer; the inner one still wins.
  @inlinable
  public func dependency<Value: TestDependencyKey>(
    _ value: Value
  ) -> Self where Value.Value == Value {
    let inner = update
    return Self(base: base) {
      $0[Value.self] = value
      inner(&$0)
    }
  }

  /// Transforming again composes the changes into one reducer; the inner one still wins.
  @inlinable
  public func transformDependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value>,
    transform: @escaping (_ dependency: inout Value) -> Void
  ) -> Self {
    let inner = update
    return Self(base: base) {
      transform(&$0[keyPath: keyPath])
      inner(&$0)
    }
  }
}
