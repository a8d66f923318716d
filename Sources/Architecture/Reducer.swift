/// A type that describes how a feature's state changes in response to an action, and which
/// effects run as a result.
///
/// Conform a type to `Reducer` and implement either ``body-swift.property`` (to compose other
/// reducers) or ``reduce(into:action:)`` (to write the logic directly):
///
/// ```swift
/// struct Counter: Reducer {
///   struct State: Equatable { var count = 0 }
///   enum Action { case incrementButtonTapped, decrementButtonTapped }
///
///   var body: some ReducerOf<Self> {
///     Reduce { state, action in
///       switch action {
///       case .incrementButtonTapped:
///         state.count += 1
///         return .none
///       case .decrementButtonTapped:
///         state.count -= 1
///         return .none
///       }
///     }
///   }
/// }
/// ```
///
/// Reducers are values: composing them with ``Scope``, ``ifLet(_:action:then:fileID:filePath:line:column:)``
/// and friends builds a tree of small generic structs that the optimizer can flatten.
public protocol Reducer<State, Action> {
  /// The state the reducer works on.
  associatedtype State

  /// The actions the reducer handles.
  associatedtype Action

  /// The type of ``body-swift.property``; `Never` for reducers that implement
  /// ``reduce(into:action:)`` directly.
  ///
  /// Don't name this type yourself: implement `var body: some ReducerOf<Self>`.
  associatedtype _Body

  /// The type of ``body-swift.property``.
  typealias Body = _Body

  /// Evolves `state` with `action` and returns the effect to run afterwards.
  ///
  /// Implement this for a leaf reducer. When the reducer has a ``body-swift.property``, the
  /// default implementation runs the body.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducers that make up this reducer, run in order on the same state.
  ///
  /// Implement this to compose reducers; the default implementation is used when the type
  /// implements ``reduce(into:action:)`` instead.
  @ReducerBuilder<State, Action>
  var body: Body { get }
}

extension Reducer where Body == Never {
  /// A reducer that implements ``reduce(into:action:)`` has no body.
  ///
  /// Calling it is a programmer error.
  @_transparent
  public var body: Body {
    fatalError(
      """
      '\(Self.self)' has no body. Do not access a reducer's 'body' directly: call \
      'reduce(into:action:)' instead.
      """
    )
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  /// Runs the reducer's ``body-swift.property``.
  ///
  /// Written in terms of the body's types, so that a reducer whose body is
  /// `some Reducer<Int, Bool>` gets its `State` and `Action` from it.
  @inlinable
  public func reduce(into state: inout Body.State, action: Body.Action) -> Effect<Body.Action> {
    self.body.reduce(into: &state, action: action)
  }
}

/// The reducer type with the same state and action as `R`, for `some ReducerOf<Self>`.
///
/// ```swift
/// var body: some ReducerOf<Self> { Reduce { state, action in .none } }
/// ```
public typealias ReducerOf<R: Reducer> = Reducer<R.State, R.Action>
