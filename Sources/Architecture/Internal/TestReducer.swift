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

/// A place in the test's source, where issues are reported.
struct SourceLocation: Sendable {
  var fileID: StaticString
  var filePath: StaticString
  var line: UInt
  var column: UInt
}

/// What a ``TestStore`` has seen its reducer do and not yet asserted.
final class TestRecorder<State, Action> {
  /// The state right after the last action the test sent.
  var sentState: State?
  /// Actions received from effects, with the state right after each, oldest first.
  var received: [(action: Action, state: State)] = []
}

/// Wraps a feature's reducer to record the state after each action and to mark the actions its
/// effects send as received.
struct TestReducer<State, Action>: Reducer {
  let base: any Reducer<State, Action>
  let recorder: TestRecorder<State, Action>

  func reduce(into state: inout State, action: TestAction<Action>) -> Effect<TestAction<Action>> {
    let effect = base.reduce(into: &state, action: action.action)
    switch action.origin {
    case .send:
      recorder.sentState = state
    case .receive:
      recorder.received.append((action.action, state))
    }
    return effect.map { TestAction(action: $0, origin: .receive) }
  }
}
