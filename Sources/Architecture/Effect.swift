import CustomDump
import IssueReporting

/// Work that a reducer asks the store to do after it changed state, which may send more actions.
///
/// Return ``none`` when there is nothing to do, ``send(_:)`` to feed an action straight back in,
/// and ``run(priority:operation:catch:fileID:filePath:line:column:)`` for asynchronous work:
///
/// ```swift
/// case .startButtonTapped:
///   state.isRecording = true
///   return .run { send in
///     for try await result in try await speechClient.startTask() {
///       await send(.transcribed(result))
///     }
///   } catch: { error, send in
///     await send(.failed(error))
///   }
///   .cancellable(id: CancelID.recording, cancelInFlight: true)
/// ```
///
/// Combine effects with ``merge(with:)``, ``concatenate(with:)`` and ``map(_:)`` (or the static
/// `merge` and `concatenate` over many effects),
/// and stop them with ``cancellable(id:cancelInFlight:)`` and ``cancel(id:)``.
public struct Effect<Action> {
  @usableFromInline
  let operation: Operation

  @usableFromInline
  init(operation: Operation) {
    self.operation = operation
  }

  @usableFromInline
  enum Operation {
    case none
    case send(Action)
    case run(TaskPriority?, @Sendable (Send<Action>) async -> Void)
    indirect case merge([Effect<Action>])
    indirect case concatenate([Effect<Action>])
    indirect case cancellable(_CancelID, cancelInFlight: Bool, Effect<Action>)
    case cancel(_CancelID)
  }
}

/// An effect can be handed between tasks, as in TCA. Its asynchronous work is `@Sendable`; an
/// action carried by ``send(_:)`` is only ever read by the store that runs it, on its actor.
extension Effect: @unchecked Sendable {}

/// The effect type of a reducer, for helpers that build effects: `EffectOf<Feature>`.
public typealias EffectOf<R: Reducer> = Effect<R.Action>

extension Effect {
  /// An effect that does nothing.
  @inlinable
  public static var none: Self {
    Self(operation: .none)
  }

  /// An effect that feeds `action` back into the store immediately, before the store returns to
  /// its caller.
  ///
  /// Prefer calling shared logic directly over sending actions to share it; use this to notify a
  /// parent feature (`return .send(.delegate(.didFinish))`).
  @inlinable
  public static func send(_ action: Action) -> Self {
    Self(operation: .send(action))
  }

  /// An effect that runs asynchronous work in a task and sends actions back with `send`.
  ///
  /// The operation sees the dependencies that were in force where the reducer returned the effect,
  /// including overrides made with ``Reducer/dependency(_:_:)`` and the store's
  /// `withDependencies`.
  ///
  /// ```swift
  /// return .run { [count = state.count] send in
  ///   let fact = try await factClient.fetch(count)
  ///   await send(.factResponse(fact))
  /// } catch: { error, send in
  ///   await send(.factFailed(error.localizedDescription))
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - priority: The priority of the task that runs the operation.
  ///   - operation: The work to do. Cancellation ends it like any other task.
  ///   - handler: Handles an error thrown by `operation`. Without a handler, an error other than
  ///     `CancellationError` is reported as an issue that names the place this effect was created.
  @inlinable
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    let dependencies = DependencyValues._current
    return Self(
      operation: .run(priority) { send in
        await DependencyValues.$_current.withValue(dependencies) {
          do {
            try await operation(send)
          } catch is CancellationError {
            return
          } catch {
            guard !Task.isCancelled else { return }
            guard let handler else {
              reportUnhandledEffectError(
                error, fileID: fileID, filePath: filePath, line: line, column: column)
              return
            }
            await handler(error, send)
          }
        }
      }
    )
  }

  /// An effect that runs all the given effects at the same time.
  @inlinable
  public static func merge(_ effects: Self...) -> Self {
    .merge(effects)
  }

  /// An effect that runs all the given effects at the same time.
  @inlinable
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    effects.reduce(.none) { $0.merge(with: $1) }
  }

  /// An effect that runs this effect and `other` at the same time.
  @inlinable
  public func merge(with other: Self) -> Self {
    switch (self.operation, other.operation) {
    case (.none, _):
      return other
    case (_, .none):
      return self
    case (.merge(let lhs), .merge(let rhs)):
      return Self(operation: .merge(lhs + rhs))
    case (.merge(let lhs), _):
      return Self(operation: .merge(lhs + [other]))
    case (_, .merge(let rhs)):
      return Self(operation: .merge([self] + rhs))
    default:
      return Self(operation: .merge([self, other]))
    }
  }

  /// An effect that runs the given effects one after another: each starts when the previous one
  /// has finished.
  @inlinable
  public static func concatenate(_ effects: Self...) -> Self {
    .concatenate(effects)
  }

  /// An effect that runs the given effects one after another: each starts when the previous one
  /// has finished.
  @inlinable
  public static func concatenate(_ effects: some Collection<Self>) -> Self {
    effects.reduce(.none) { $0.concatenate(with: $1) }
  }

  /// An effect that runs this effect and then, once it has finished, `next`.
  @inlinable
  public func concatenate(with next: Self) -> Self {
    switch (self.operation, next.operation) {
    case (.none, _):
      return next
    case (_, .none):
      return self
    case (.concatenate(let lhs), .concatenate(let rhs)):
      return Self(operation: .concatenate(lhs + rhs))
    case (.concatenate(let lhs), _):
      return Self(operation: .concatenate(lhs + [next]))
    case (_, .concatenate(let rhs)):
      return Self(operation: .concatenate([self] + rhs))
    default:
      return Self(operation: .concatenate([self, next]))
    }
  }

  /// Transforms every action this effect sends, for example to embed a child's actions in its
  /// parent's.
  @inlinable
  public func map<T>(_ transform: @escaping @Sendable (Action) -> T) -> Effect<T> {
    switch self.operation {
    case .none:
      return .none
    case .send(let action):
      return .send(transform(action))
    case .run(let priority, let operation):
      return Effect<T>(
        operation: .run(priority) { send in
          await operation(send.map(transform))
        }
      )
    case .merge(let effects):
      return Effect<T>(operation: .merge(effects.map { $0.map(transform) }))
    case .concatenate(let effects):
      return Effect<T>(operation: .concatenate(effects.map { $0.map(transform) }))
    case .cancellable(let id, let cancelInFlight, let effect):
      return Effect<T>(
        operation: .cancellable(id, cancelInFlight: cancelInFlight, effect.map(transform)))
    case .cancel(let id):
      return Effect<T>(operation: .cancel(id))
    }
  }
}

@usableFromInline
func reportUnhandledEffectError(
  _ error: any Error,
  fileID: StaticString,
  filePath: StaticString,
  line: UInt,
  column: UInt
) {
  reportIssue(
    """
    An 'Effect.run' created at \(fileID):\(line) threw an unhandled error of type \
    '\(type(of: error))':

    \(String(customDumping: error).indentedForIssue)

    Errors thrown from an effect are not fed back into the store. To fix this, handle the error \
    in the effect's 'catch:' closure (for example by sending a failure action), or catch it with \
    'do'/'catch' inside the operation. 'CancellationError' is ignored.
    """,
    fileID: fileID,
    filePath: filePath,
    line: line,
    column: column
  )
}
