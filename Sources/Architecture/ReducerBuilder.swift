/// Builds a reducer from a list of reducers, run in order on the same state, whose effects are
/// merged.
///
/// It powers ``Reducer/body-swift.property``, ``CombineReducers`` and the `then:` closures of the
/// operators, and supports `if`, `if`/`else`, `switch`, `for` and `#available`:
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   Scope(state: \.settings, action: \.settings) { Settings() }
///   if isLoggingEnabled {
///     Logging()
///   }
///   Reduce { state, action in .none }
/// }
/// ```
///
/// Every reducer keeps its concrete type, so a composed body is a nest of small generic structs
/// the optimizer can flatten. A reducer of existential type (`any Reducer<State, Action>`) can be
/// listed too; it is wrapped in a ``Reduce``.
@resultBuilder
public enum ReducerBuilder<State, Action> {
  /// A `for` loop: runs each reducer in turn.
  @inlinable
  public static func buildArray<R: Reducer<State, Action>>(_ reducers: [R]) -> _SequenceMany<R> {
    _SequenceMany(reducers)
  }

  /// An empty body: a reducer that does nothing.
  @inlinable
  public static func buildBlock() -> EmptyReducer<State, Action> {
    EmptyReducer()
  }

  /// The `if` branch of `if`/`else` or a case of a `switch`.
  @inlinable
  public static func buildEither<R0: Reducer<State, Action>, R1: Reducer<State, Action>>(
    first reducer: R0
  ) -> _Conditional<R0, R1> {
    .first(reducer)
  }

  /// The `else` branch of `if`/`else` or a later case of a `switch`.
  @inlinable
  public static func buildEither<R0: Reducer<State, Action>, R1: Reducer<State, Action>>(
    second reducer: R1
  ) -> _Conditional<R0, R1> {
    .second(reducer)
  }

  /// A reducer listed in the body.
  @inlinable
  public static func buildExpression<R: Reducer>(_ expression: R) -> R
  where R.State == State, R.Action == Action {
    expression
  }

  /// A reducer of existential type listed in the body, wrapped in a ``Reduce``.
  ///
  /// Disfavored, so that a concrete reducer keeps its type (wrapping every reducer in a closure
  /// would add a stack frame per level of a deep composition).
  @_disfavoredOverload
  @inlinable
  public static func buildExpression(
    _ expression: any Reducer<State, Action>
  ) -> Reduce<
    State, Action
  > {
    Reduce(expression)
  }

  /// The whole body.
  @inlinable
  public static func buildFinalResult<R: Reducer<State, Action>>(_ reducer: R) -> R {
    reducer
  }

  /// An `if #available` block: the reducer's type is hidden so it can be unavailable elsewhere.
  @inlinable
  public static func buildLimitedAvailability<R: Reducer<State, Action>>(
    _ wrapped: R
  ) -> Reduce<
    State, Action
  > {
    Reduce(wrapped)
  }

  /// An `if` without `else`: runs the reducer when the condition held.
  @inlinable
  public static func buildOptional<R: Reducer<State, Action>>(_ wrapped: R?) -> R? {
    wrapped
  }

  /// The first reducer of a block.
  @inlinable
  public static func buildPartialBlock<R: Reducer<State, Action>>(first: R) -> R {
    first
  }

  /// The first reducer of a block, of existential type: wrapped in a ``Reduce``.
  ///
  /// A listed `any Reducer` is opened by the generic `buildExpression` and arrives here
  /// still existential. Disfavored, like every existential overload, so that concrete reducers
  /// keep their types.
  @_disfavoredOverload
  @inlinable
  public static func buildPartialBlock(first: any Reducer<State, Action>) -> Reduce<State, Action> {
    Reduce(first)
  }

  /// The reducers so far followed by one of existential type, wrapped in a ``Reduce``.
  @_disfavoredOverload
  @inlinable
  public static func buildPartialBlock<R0: Reducer<State, Action>>(
    accumulated: R0, next: any Reducer<State, Action>
  ) -> _Sequence<R0, Reduce<State, Action>> {
    _Sequence(accumulated, Reduce(next))
  }

  /// Existential reducers so far followed by the next one.
  @_disfavoredOverload
  @inlinable
  public static func buildPartialBlock<R1: Reducer<State, Action>>(
    accumulated: any Reducer<State, Action>, next: R1
  ) -> _Sequence<Reduce<State, Action>, R1> {
    _Sequence(Reduce(accumulated), next)
  }

  /// Existential reducers so far followed by another existential reducer.
  @_disfavoredOverload
  @inlinable
  public static func buildPartialBlock(
    accumulated: any Reducer<State, Action>, next: any Reducer<State, Action>
  ) -> _Sequence<Reduce<State, Action>, Reduce<State, Action>> {
    _Sequence(Reduce(accumulated), Reduce(next))
  }

  /// A whole body of existential type, wrapped in a ``Reduce``.
  @_disfavoredOverload
  @inlinable
  public static func buildFinalResult(
    _ reducer: any Reducer<State, Action>
  ) -> Reduce<
    State, Action
  > {
    Reduce(reducer)
  }

  /// The reducers so far followed by the next one.
  @inlinable
  public static func buildPartialBlock<R0: Reducer<State, Action>, R1: Reducer<State, Action>>(
    accumulated: R0, next: R1
  ) -> _Sequence<R0, R1> {
    _Sequence(accumulated, next)
  }
}

/// Two reducers run one after the other; built by ``ReducerBuilder``.
public struct _Sequence<R0: Reducer, R1: Reducer<R0.State, R0.Action>>: Reducer {
  @usableFromInline
  let r0: R0

  @usableFromInline
  let r1: R1

  @inlinable
  init(_ r0: R0, _ r1: R1) {
    self.r0 = r0
    self.r1 = r1
  }

  @inlinable
  public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
    self.r0.reduce(into: &state, action: action)
      .merge(with: self.r1.reduce(into: &state, action: action))
  }
}

/// Any number of reducers of one type run in order; built by ``ReducerBuilder`` for `for` loops.
public struct _SequenceMany<Element: Reducer>: Reducer {
  @usableFromInline
  let reducers: [Element]

  @inlinable
  init(_ reducers: [Element]) {
    self.reducers = reducers
  }

  @inlinable
  public func reduce(
    into state: inout Element.State, action: Element.Action
  ) -> Effect<
    Element.Action
  > {
    var effect = Effect<Element.Action>.none
    for reducer in reducers {
      effect = effect.merge(with: reducer.reduce(into: &state, action: action))
    }
    return effect
  }
}

/// One of two reducers, picked by an `if`/`else` or `switch`; built by ``ReducerBuilder``.
public enum _Conditional<First: Reducer, Second: Reducer<First.State, First.Action>>: Reducer {
  /// The first branch.
  case first(First)
  /// The second branch.
  case second(Second)

  @inlinable
  public func reduce(
    into state: inout First.State, action: First.Action
  ) -> Effect<
    First.Action
  > {
    switch self {
    case .first(let first):
      return first.reduce(into: &state, action: action)
    case .second(let second):
      return second.reduce(into: &state, action: action)
    }
  }
}

/// An optional reducer runs when it is present; ``ReducerBuilder`` uses this for `if` without
/// `else`.
extension Optional: Reducer where Wrapped: Reducer {
  /// Runs the wrapped reducer, or does nothing when there is none.
  @inlinable
  public func reduce(
    into state: inout Wrapped.State, action: Wrapped.Action
  ) -> Effect<
    Wrapped.Action
  > {
    switch self {
    case .some(let wrapped):
      return wrapped.reduce(into: &state, action: action)
    case .none:
      return .none
    }
  }
}
