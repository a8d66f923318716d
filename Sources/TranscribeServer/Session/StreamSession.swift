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
///   sessionBody(recognition: \.utterance, action: \.recognition) { Recognizing<Utterance>() }
/// }
/// ```
///
/// (``ProtocolSession/sessionBody(recognition:action:child:)``: this stream first, through
/// ``StreamScope``, then the protocol's own ``ProtocolSession/reduceProtocol(into:action:)``.)
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
