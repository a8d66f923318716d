/// A reducer that does nothing: it leaves state alone and returns no effect.
///
/// Useful as a placeholder while building a feature, and as the result of an empty
/// ``ReducerBuilder`` block.
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   EmptyReducer()
/// }
/// ```
public struct EmptyReducer<State, Action>: Reducer {
  /// Creates a reducer that does nothing.
  @inlinable
  public init() {}

  @inlinable
  public func reduce(into _: inout State, action _: Action) -> Effect<Action> {
    .none
  }
}
