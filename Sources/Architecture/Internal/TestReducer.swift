/// Where an action came into a ``TestStore``: sent by the test (at a source location) or
/// received from an effect.
struct TestAction<Action> {
  enum Origin {
    case send(SourceLocation)
    case receive
  }

  var action: Action
  var origin: Origin
}

/// What a ``TestStore`` has seen its reducer do and not yet asserted.
final class TestRecorder<State, Action> {
  /// The state right after the last action the test sent.
  var sentState: State?
  /// The id the last sent action's first new stack element got (or would have got), so that the
  /// test's assertion appends elements under the same ids.
  var sentNextStackID: Int?
  /// Actions received from effects, with the state right after each and the first stack element
  /// id its reducer could give, oldest first.
  var received: [(action: Action, state: State, nextStackID: Int)] = []
}

/// Wraps a feature's reducer to record the state after each action and to mark the actions its
/// effects send as received.
struct TestReducer<State, Action>: Reducer {
  let base: any Reducer<State, Action>
  let recorder: TestRecorder<State, Action>

  func reduce(into state: inout State, action: TestAction<Action>) -> Effect<TestAction<Action>> {
    let nextStackID = DependencyValues._current.stackElementID.peek().generation
    let effect = base.reduce(into: &state, action: action.action)
    switch action.origin {
    case .send:
      recorder.sentState = state
      recorder.sentNextStackID = nextStackID
    case .receive:
      recorder.received.append((action.action, state, nextStackID))
    }
    return effect.map { TestAction(action: $0, origin: .receive) }
  }
}
