extension Reducer {
  /// Runs another reducer when a value in state changes after this reducer ran.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   Reduce { state, action in ... }
  ///     .onChange(of: \.query) { oldValue, newValue in
  ///       Reduce { state, action in
  ///         .run { send in await send(.search(newValue)) }
  ///           .cancellable(id: CancelID.search, cancelInFlight: true)
  ///       }
  ///     }
  /// }
  /// ```
  ///
  /// The value is compared before and after this reducer handles each action; when it differs,
  /// the reducer built from the old and new values runs on the same state and action, and its
  /// effects are merged after this reducer's.
  @inlinable
  public func onChange<Value: Equatable, Change: Reducer<State, Action>>(
    of toValue: @escaping (State) -> Value,
    @ReducerBuilder<State, Action> _ change:
      @escaping (_ oldValue: Value, _ newValue: Value) ->
      Change
  ) -> _OnChangeReducer<Self, Value, Change> {
    _OnChangeReducer(base: self, toValue: toValue, isDuplicate: ==, change: change)
  }

  /// Runs another reducer when a value in state changes after this reducer ran, with your own
  /// notion of "unchanged".
  ///
  /// ```swift
  /// .onChange(of: \.query, removeDuplicates: { $0.lowercased() == $1.lowercased() }) { _, query in
  ///   Reduce { state, action in .send(.search(query)) }
  /// }
  /// ```
  ///
  /// - Parameter isDuplicate: Whether the old and new values count as the same, so that
  ///   `change` does not run.
  @inlinable
  public func onChange<Value, Change: Reducer<State, Action>>(
    of toValue: @escaping (State) -> Value,
    removeDuplicates isDuplicate: @escaping (Value, Value) -> Bool,
    @ReducerBuilder<State, Action> _ change:
      @escaping (_ oldValue: Value, _ newValue: Value) ->
      Change
  ) -> _OnChangeReducer<Self, Value, Change> {
    _OnChangeReducer(base: self, toValue: toValue, isDuplicate: isDuplicate, change: change)
  }
}

/// The reducer built by ``Reducer/onChange(of:_:)``.
public struct _OnChangeReducer<
  Base: Reducer, Value,
  Change: Reducer<
    Base.State, Base.Action
  >
>: Reducer {
  @usableFromInline
  let base: Base

  @usableFromInline
  let toValue: (Base.State) -> Value

  @usableFromInline
  let isDuplicate: (Value, Value) -> Bool

  @usableFromInline
  let change: (Value, Value) -> Change

  @usableFromInline
  init(
    base: Base,
    toValue: @escaping (Base.State) -> Value,
    isDuplicate: @escaping (Value, Value) -> Bool,
    change: @escaping (Value, Value) -> Change
  ) {
    self.base = base
    self.toValue = toValue
    self.isDuplicate = isDuplicate
    self.change = change
  }

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldValue = toValue(state)
    let baseEffects = base.reduce(into: &state, action: action)
    let newValue = toValue(state)
    guard !isDuplicate(oldValue, newValue) else { return baseEffects }
    return baseEffects.merge(
      with: change(oldValue, newValue).reduce(into: &state, action: action))
  }
}
