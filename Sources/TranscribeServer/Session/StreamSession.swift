import Architecture
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature

/// What every streaming session shares, whatever its protocol, as a child reducer: the outbox
/// and its acknowledgement, the message allowance, the idle, too-little-audio and too-long
/// limits and the wait for the last words (``SessionTimers``), and how the session ended.
///
/// A protocol's session reducer (``VoskSession``, ``RealtimeSession``, ``WyomingSession``)
/// scopes it and keeps only its own parsing, pacing and rendering:
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   Scope(state: \.stream, action: \.stream) { StreamSession<Output, Problem>(limits: limits) }
///   Reduce { state, action in … }
/// }
/// ```
///
/// The host reads ``State/outbox``, ``State/allowedMessages`` and ``State/ending``, and sends
/// ``Action/start``, ``Action/written(through:)`` and what it sees of the client and the server
/// (``Action/clientLeft``, ``Action/readFailed(_:)``, ``Action/shutdown``). The protocol's
/// session learns what that means through delegate actions (``Delegate``): it must close for a
/// problem (and decides, from its own phase, whether the last words come first), or it is
/// over.
struct StreamSession<Output: Equatable & Sendable, Problem: StreamProblem>: Reducer {
  struct State: Equatable {
    /// What to write, in order, not acknowledged yet.
    var outbox: [Output] = []
    /// How many outputs the host has written in all (the outbox starts after them).
    var written = 0
    /// Messages received so far.
    var receivedMessages = 0
    /// How many messages the host may have read so far.
    var allowedMessages = 1
    /// Whether the next message waits only for the decoder to catch up
    /// (``allowNextMessage(waitingSeconds:within:)``).
    var wantsMessage = false
    /// Audio received since the idle timeout last started (``SessionTimers``).
    var idleAudio = IdleAudio()
    /// How the session ended, once it has.
    var ending: Ending?

    init() {}

    /// Counts a message the host read.
    mutating func messageReceived() {
      receivedMessages += 1
    }

    /// Lets the host read one message more than it has.
    mutating func allowNextMessage() {
      wantsMessage = false
      allowedMessages = receivedMessages + 1
    }

    /// Lets the next message in once one is wanted and the audio waiting to be decoded,
    /// `waitingSeconds`, is within `limit` (``ServerConfiguration/maxBufferedAudio``): a client
    /// sending faster than the decoder waits in TCP.
    mutating func allowNextMessage(waitingSeconds: Double, within limit: Duration) {
      guard wantsMessage, waitingSeconds <= limit.timeInterval else { return }
      allowNextMessage()
    }
  }

  /// How a session ended.
  enum Ending: Equatable, Sendable {
    /// The client ended the session as its protocol says, and got everything it asked for.
    case finished
    /// The client closed or went away.
    case clientGone
    /// Reading the socket failed (the description says how); the protocol layer closes.
    case readFailed(String)
    /// The session was closed for this problem (after the last words where there were any).
    case problem(Problem)

    /// How the session reads in its last log line.
    var outcome: SessionOutcome {
      switch self {
      case .finished: .finished
      case .clientGone: .clientClosed
      case .readFailed(let description): .badInput(description)
      case .problem(let problem): problem.outcome
      }
    }
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    /// The session opened: the idle and maximum-length timers start.
    case start
    /// The host has written this many outputs in all.
    case written(through: Int)
    /// Too little audio arrived for the idle timeout.
    case idleTimeoutElapsed
    /// The session reached its maximum length.
    case maxDurationElapsed
    /// The wait for the last words is over.
    case finalWaitElapsed
    /// The client closed or went away.
    case clientLeft
    /// Reading the socket failed (a message over the protocol's limit, a bad frame).
    case readFailed(String)
    /// The server is shutting down.
    case shutdown
    /// The session's audio has ended after its audio message `after`: the protocol's session
    /// stops its recognition if it still records that audio
    /// (``LastWords/stop(_:endedAfter:audioMessages:finish:)``).
    case audioEnded(after: Int)
    /// What the session's protocol decides on.
    case delegate(Delegate)
  }

  /// What the stream tells the protocol's session.
  @CasePathable
  enum Delegate: Equatable, Sendable {
    /// The session must close for a limit (idle, too little audio, the maximum length) or the
    /// server's shutdown: after its last words where there are any.
    case mustClose(Problem)
    /// The last words did not arrive within ``ServerConfiguration/finalWait``.
    case lastWordsLate(Problem)
    /// The session is over: the client left, or reading failed.
    case end(Ending)
  }

  /// The limits the session runs under (the server's configuration).
  let limits: ServerConfiguration

  /// The timers, as the stream's own actions.
  var timers: SessionTimers<Action> { Self.timers(limits, Action.self) { $0 } }

  /// The timers of a session that scopes the stream with `embed`.
  static func timers<ParentAction>(
    _ limits: ServerConfiguration, _: ParentAction.Type = ParentAction.self,
    embed: (Action) -> ParentAction
  ) -> SessionTimers<ParentAction> {
    SessionTimers(
      limits: limits, idle: embed(.idleTimeoutElapsed), maxDuration: embed(.maxDurationElapsed),
      finalWait: embed(.finalWaitElapsed))
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .start:
        return timers.start()

      case .written(let total):
        let count = min(max(0, total - state.written), state.outbox.count)
        state.outbox.removeFirst(count)
        state.written += count
        return .none

      case .idleTimeoutElapsed:
        guard state.ending == nil else { return .none }
        return .send(.delegate(.mustClose(.session(timers.idleProblem(state.idleAudio)))))

      case .maxDurationElapsed:
        guard state.ending == nil else { return .none }
        return .send(.delegate(.mustClose(.session(.tooLong(limits.maxSessionDuration)))))

      case .finalWaitElapsed:
        guard state.ending == nil else { return .none }
        let late = RecognitionProblem.lastWordsLate(within: limits.finalWait)
        return .send(.delegate(.lastWordsLate(.session(SessionProblem(late)))))

      case .clientLeft:
        guard state.ending == nil else { return .none }
        return .send(.delegate(.end(.clientGone)))

      case .readFailed(let description):
        guard state.ending == nil else { return .none }
        return .send(.delegate(.end(.readFailed(description))))

      case .shutdown:
        guard state.ending == nil else { return .none }
        return .send(.delegate(.mustClose(.session(.shuttingDown))))

      case .audioEnded, .delegate:
        return .none
      }
    }
  }
}

/// A protocol's problems as ``StreamSession`` needs them: it renders the problems every
/// protocol shares, and says how a session that ends with one reads in its log.
protocol StreamProblem: Error, Equatable, Sendable {
  /// The protocol's rendering of a problem every protocol shares.
  static func session(_ problem: SessionProblem) -> Self
  /// How a session that ends with this problem reads in its log.
  var outcome: SessionOutcome { get }
}

extension WebSocketSessionError: StreamProblem {}
extension WyomingProblem: StreamProblem {}

/// A protocol's session reducer over a ``StreamSession``: what it does when its stream tells it
/// to close or that it is over (``handle(_:_:)``, the one reading of the stream's delegate
/// actions).
protocol StreamingSession: Reducer
where
  State: StreamingSessionState<Output, Problem>,
  Action: StreamingSessionAction<Output, Problem>
{
  associatedtype Output: Equatable & Sendable
  associatedtype Problem: StreamProblem

  /// The limits the session runs under (the server's configuration).
  var limits: ServerConfiguration { get }
  /// Ends the session for `problem`: at once for the client's mistakes and failures, after the
  /// last words where the problem and the phase allow.
  func fail(_ state: inout State, _ problem: Problem) -> Effect<Action>
  /// The last words did not arrive within ``ServerConfiguration/finalWait``.
  func lastWordsLate(_ state: inout State, _ problem: Problem) -> Effect<Action>
  /// What the protocol writes to close: for `problem`, or a normal close for `nil`.
  static func closing(_ problem: Problem?) -> [Output]
  /// What the protocol alone drops when the session ends (its own timers, the utterance it
  /// holds), before ``end(_:_:)`` ends the audio and abandons recognition.
  func ending(_ state: inout State) -> Effect<Action>
  /// The audio `action` brings, as 16-bit little-endian mono PCM, given the state the session
  /// is in once it took the action: the host pushes it into ``StreamingSessionState/audio``
  /// when the session counted it as an audio message (``StreamingSessionState/audioMessages``
  /// grew).
  static func pcm(of action: Action, in state: State) -> ByteBuffer?
}

/// A streaming session's state: its stream, the recognition of its current audio, and how many
/// audio messages it has counted.
protocol StreamingSessionState<Output, Problem> {
  associatedtype Output: Equatable & Sendable
  associatedtype Problem: StreamProblem
  var stream: StreamSession<Output, Problem>.State { get set }
  var recognition: SpeechRecognition.State? { get }
  /// Audio messages taken (and, where a session starts one audio after another, their starts):
  /// a number that grows with every message the host is to push.
  var audioMessages: Int { get }
}

extension StreamingSessionState {
  /// Whether the session is over: the one place that says so is the stream's ending.
  var isOver: Bool { stream.ending != nil }

  /// Counts a message the host read; `false` once the session is over, when the message
  /// changes nothing more.
  mutating func takeMessage() -> Bool {
    stream.messageReceived()
    return !isOver
  }

  /// The audio the current recognition reads: the host pushes what the session takes into it.
  var audio: PushedAudio? {
    guard case .pushed(let audio) = recognition?.request.source else { return nil }
    return audio
  }
}

/// A streaming session's actions for its stream's and its recognition's (its cases `stream`
/// and `recognition`).
protocol StreamingSessionAction<Output, Problem>: Sendable {
  associatedtype Output: Equatable & Sendable
  associatedtype Problem: StreamProblem
  static func stream(_ action: StreamSession<Output, Problem>.Action) -> Self
  static func recognition(_ action: SpeechRecognition.Action) -> Self
  /// The stream's action this is, if it is one.
  var streamAction: StreamSession<Output, Problem>.Action? { get }
}

/// A protocol's session's stream, as the first reducer of its body: ``StreamSession`` on
/// ``StreamingSessionState/stream``, then the session's reading of what the stream did
/// (``StreamingSession/reduce(stream:_:)``): stops its recognition once the audio has ended,
/// closes or ends as the stream's delegate actions ask.
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   StreamScope(self)
///   Reduce { state, action in … }
/// }
/// ```
struct StreamScope<Session: StreamingSession>: Reducer {
  let session: Session

  init(_ session: Session) {
    self.session = session
  }

  func reduce(
    into state: inout Session.State, action: Session.Action
  ) -> Effect<Session.Action> {
    guard let action = action.streamAction else { return .none }
    let stream = StreamSession<Session.Output, Session.Problem>(limits: session.limits)
      .reduce(into: &state.stream, action: action)
      .map { Session.Action.stream($0) }
    return .merge(stream, session.reduce(stream: action, &state))
  }
}

extension StreamingSession {
  /// The idle, maximum-length and last-words timers, as the session's actions.
  var timers: SessionTimers<Action> {
    StreamSession<Output, Problem>.timers(limits, embed: Action.stream)
  }

  /// Nothing of the protocol's own to drop.
  func ending(_ state: inout State) -> Effect<Action> { .none }

  /// Closes the session: writes what closes for `problem` (a normal close for `nil`), then ends
  /// it (``end(_:_:)``) with that problem, or as finished.
  func close(_ state: inout State, _ problem: Problem?) -> Effect<Action> {
    guard !state.isOver else { return .none }
    state.stream.outbox += Self.closing(problem)
    return end(&state, problem.map { .problem($0) } ?? .finished)
  }

  /// The session is over, once: the protocol drops what it alone holds (``ending(_:)``), the
  /// audio ends, every timer stops, and recognition is abandoned if it still runs.
  func end(
    _ state: inout State, _ ending: StreamSession<Output, Problem>.Ending
  ) -> Effect<Action> {
    guard !state.isOver else { return .none }
    let own = self.ending(&state)
    state.stream.ending = ending
    var effects = [own, endAudio(state), timers.stopAll()]
    if let recognition = state.recognition, recognition.status != .idle {
      effects.append(.send(.recognition(.cancel)))
    }
    return .merge(effects)
  }

  /// Where the session keeps its stream.
  static var streamState: WritableKeyPath<State, StreamSession<Output, Problem>.State> {
    \.stream
  }

  /// The session's action for one of its stream's.
  static func streamAction(_ action: StreamSession<Output, Problem>.Action) -> Action {
    .stream(action)
  }

  /// What the session does with its stream's actions: stops recognition once the audio has
  /// ended (``LastWords/stop(_:endedAfter:audioMessages:finish:)``) and does what a delegate
  /// action asks; the rest is the stream's own.
  func reduce(
    stream action: StreamSession<Output, Problem>.Action, _ state: inout State
  ) -> Effect<Action> {
    switch action {
    case .audioEnded(let last):
      LastWords.stop(
        state.recognition, endedAfter: last, audioMessages: state.audioMessages,
        finish: .recognition(.finish))
    case .delegate(let delegate):
      handle(delegate, &state)
    default:
      .none
    }
  }

  /// Ends the audio the current recognition reads, after every message the session took (the
  /// host pushed each in the turn that took it); once or again, it changes nothing.
  func endAudio(_ state: State) -> Effect<Action> {
    guard let audio = state.audio else { return .none }
    return .run { _ in audio.finish() }
  }

  /// Does what the stream's delegate action asks.
  func handle(
    _ delegate: StreamSession<Output, Problem>.Delegate, _ state: inout State
  ) -> Effect<Action> {
    switch delegate {
    case .mustClose(let problem): fail(&state, problem)
    case .lastWordsLate(let problem): lastWordsLate(&state, problem)
    case .end(let ending): end(&state, ending)
    }
  }
}
