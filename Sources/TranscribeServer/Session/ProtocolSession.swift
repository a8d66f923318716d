import Architecture
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature

/// A protocol's problems as ``StreamSession`` needs them: it renders the problems every
/// protocol shares, and says how a session that ends with one reads in its log.
protocol StreamProblem: Error, Equatable, Sendable {
  /// The protocol's rendering of a problem every protocol shares.
  static func session(_ problem: SessionProblem) -> Self
  /// The protocol's rendering of a recognition that failed or may not run.
  init(_ problem: RecognitionProblem)
  /// How a session that ends with this problem reads in its log.
  var outcome: SessionOutcome { get }
}

extension StreamProblem {
  /// A recognition that failed, as every protocol shares it (``SessionProblem/recognitionFailed(_:)``).
  init(_ problem: RecognitionProblem) {
    self = .session(SessionProblem(problem))
  }
}

extension WebSocketSessionError: StreamProblem {}
extension WyomingProblem: StreamProblem {}

/// A protocol's session reducer over a ``StreamSession``: what it does when its stream tells it
/// to close or that it is over (``handle(_:_:)``, the one reading of the stream's delegate
/// actions).
protocol ProtocolSession: Reducer, SendableMetatype
where
  State: ProtocolSessionState<Output, Problem>,
  Action: ProtocolSessionAction<Output, Problem>
{
  associatedtype Output: Equatable & Sendable
  associatedtype Problem: StreamProblem

  /// The limits the session runs under (the server's configuration).
  var limits: ServerConfiguration { get }
  /// What the protocol does with an action once its stream has taken it: its own parsing,
  /// pacing and rendering (``sessionBody(recognition:action:child:)`` runs it).
  func reduceProtocol(into state: inout State, action: Action) -> Effect<Action>
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
  /// is in once it took the action: the host pushes it into ``ProtocolSessionState/audio``
  /// when the session counted it as an audio message (``ProtocolSessionState/audioMessages``
  /// grew).
  static func pcm(of action: Action, in state: State) -> ByteBuffer?
}

/// A streaming session's state: its stream, the recognition of its current audio, and how many
/// audio messages it has counted.
protocol ProtocolSessionState<Output, Problem> {
  associatedtype Output: Equatable & Sendable
  associatedtype Problem: StreamProblem
  var stream: StreamSession<Output, Problem>.State { get set }
  var recognition: SpeechRecognition.State? { get }
  /// Audio messages taken (and, where a session starts one audio after another, their starts):
  /// a number that grows with every message the host is to push.
  var audioMessages: Int { get }
}

extension ProtocolSessionState {
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
protocol ProtocolSessionAction<Output, Problem>: Sendable {
  associatedtype Output: Equatable & Sendable
  associatedtype Problem: StreamProblem
  static func stream(_ action: StreamSession<Output, Problem>.Action) -> Self
  static func recognition(_ action: SpeechRecognition.Action) -> Self
  /// The stream's action this is, if it is one.
  var streamAction: StreamSession<Output, Problem>.Action? { get }
}

/// A protocol's session's stream, as the first reducer of its body: ``StreamSession`` on
/// ``ProtocolSessionState/stream``, then the session's reading of what the stream did
/// (``ProtocolSession/reduce(stream:_:)``): stops its recognition once the audio has ended,
/// closes or ends as the stream's delegate actions ask.
///
/// ``ProtocolSession/sessionBody(recognition:action:child:)`` puts it first.
struct StreamScope<Session: ProtocolSession>: Reducer {
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

extension ProtocolSession {
  /// What every streaming session shares (the outbox, the allowance, the limits, the ending).
  typealias Stream = StreamSession<Output, Problem>

  /// The body of a protocol's session: its stream first (``StreamScope``), then what the
  /// protocol does (``reduceProtocol(into:action:)``), then its recognition, the `child` at
  /// `recognition`, under `ifLet`: the stream's ending can drop the recognition, and the `ifLet`
  /// must see it go.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   sessionBody(recognition: \.utterance, action: \.recognition) { Recognizing<Utterance>() }
  /// }
  /// ```
  func sessionBody<Child: Reducer>(
    recognition: WritableKeyPath<State, Child.State?>,
    action: CaseKeyPath<Action, Child.Action>,
    child: () -> Child
  ) -> some Reducer<State, Action> where Action: CasePathable {
    CombineReducers {
      StreamScope(self)
      Reduce { state, action in reduceProtocol(into: &state, action: action) }
    }
    .ifLet(recognition, action: action, then: child)
  }

  /// The idle, maximum-length and last-words timers, as the session's actions.
  var timers: SessionTimers<Action> {
    Stream.timers(limits, embed: Action.stream)
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
    _ state: inout State, _ ending: Stream.Ending
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
  static var streamState: WritableKeyPath<State, Stream.State> {
    \.stream
  }

  /// The session's action for one of its stream's.
  static func streamAction(_ action: Stream.Action) -> Action {
    .stream(action)
  }

  /// What the session does with its stream's actions: stops recognition once the audio has
  /// ended (``LastWords/stop(_:endedAfter:audioMessages:finish:)``) and does what a delegate
  /// action asks; the rest is the stream's own.
  func reduce(
    stream action: Stream.Action, _ state: inout State
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

  /// The audio is over: ends it, asks recognition for its last words and awaits them
  /// (``LastWords/await(_:endAudio:audioEnded:closing:timers:arrived:)``); `arrived` handles
  /// them, at once when recognition is over already.
  func awaitLastWords(
    _ state: inout State, closing: Problem?, arrived: (inout State) -> Effect<Action>
  ) -> Effect<Action> {
    LastWords.await(
      state.recognition, endAudio: endAudio(state),
      audioEnded: .stream(.audioEnded(after: state.audioMessages)), closing: closing,
      timers: timers
    ) { arrived(&state) }
  }

  /// What the session closes with when its recognition failed or may not run (its engine is
  /// not installed); `nil` while it may go on.
  func recognitionFailure(_ state: State) -> Problem? {
    guard let outcome = state.recognition?.outcome else { return nil }
    switch outcome {
    case .failed, .notAuthorized: return RecognitionProblem(outcome).map(Problem.init)
    default: return nil
    }
  }

  /// Does what the stream's delegate action asks.
  func handle(
    _ delegate: Stream.Delegate, _ state: inout State
  ) -> Effect<Action> {
    switch delegate {
    case .mustClose(let problem): fail(&state, problem)
    case .lastWordsLate(let problem): lastWordsLate(&state, problem)
    case .end(let ending): end(&state, ending)
    }
  }
}
