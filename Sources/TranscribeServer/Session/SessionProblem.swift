import Foundation

/// Why a session cannot start, or ends other than by its client, for a reason every protocol
/// shares: the server's one catalogue of them, each defined here once with what the client is
/// told and how the session's log line reads.
///
/// A protocol only renders a problem in its own shape: vosk's `{"error": …}` and a close code
/// (``WebSocketSessionError``), a Realtime `error` event (``RealtimeError/init(closing:)``), a
/// Wyoming `error` event (``WyomingProblem``), OpenAI's status and JSON (``OpenAIError``).
///
/// ```swift
/// let problem = SessionProblem.idle(limits.idleTimeout)
/// problem.text               // "no audio for 30 s; the stream was closed"
/// problem.deliversLastWords  // true: the client did nothing wrong
/// ```
enum SessionProblem: Error, Equatable, Sendable {
  /// Every session place is taken.
  case busy
  /// The server has its most connections open (``ServerConfiguration/maxConnections``).
  case tooManyConnections(limit: Int)
  /// The server is shutting down.
  case shuttingDown
  /// No audio for the idle timeout.
  case idle(Duration)
  /// Audio arrived during the idle timeout, but less than renews it: a trickle that would
  /// otherwise hold a session place.
  case tooLittleAudio(received: Duration, within: Duration, renewal: Duration)
  /// The session ran longer than the maximum.
  case tooLong(Duration)
  /// Recognition failed; the reason says how (``RecognitionProblem/message``).
  case recognitionFailed(String)
  /// A message over the limit (``ServerConfiguration/maxFrameBytes``): `bytes` long or, when
  /// it was not read at all (``ServerConfiguration/frameReadLimit``), longer than `bytes`.
  case messageTooLarge(bytes: Int, limit: Int, isUnread: Bool = false)

  /// What the client is told, in a sentence that names the fix.
  var text: String {
    switch self {
    case .busy:
      "every session place is taken; try again later"
    case .tooManyConnections(let limit):
      "the server has \(limit) connections open, its most; try again shortly"
    case .shuttingDown:
      "the server is shutting down; try again later, on another instance if there is one"
    case .idle(let timeout):
      "no audio for \(timeout.spokenSeconds); the stream was closed"
    case .tooLittleAudio(let received, let within, let renewal):
      "too little audio: \(received.spokenSeconds) in the last \(within.spokenSeconds), and "
        + "a stream must send \(renewal.spokenSeconds) of audio within each "
        + "\(within.spokenSeconds); send audio as it is recorded"
    case .tooLong(let limit):
      "the session reached its maximum length of \(limit.spokenSeconds); start a new one"
    case .recognitionFailed(let reason):
      "recognition failed: \(reason)"
    case .messageTooLarge(let bytes, let limit, let isUnread):
      "a message of \(isUnread ? "more than " : "")\(bytes) bytes is over the limit of \(limit) "
        + "bytes; send smaller chunks"
    }
  }

  /// How a session that ends with this problem reads in its log.
  var outcome: SessionOutcome {
    switch self {
    case .idle: .idleTimeout
    case .tooLittleAudio: .tooLittleAudio
    case .tooLong: .tooLong
    case .shuttingDown: .shutdown
    case .busy, .tooManyConnections, .recognitionFailed: .failed(text)
    case .messageTooLarge: .badInput(text)
    }
  }

  /// Whether a session that ends with this problem first gets its last words: a limit or a
  /// shutdown (the client did nothing wrong), not a failure.
  var deliversLastWords: Bool {
    switch self {
    case .idle, .tooLittleAudio, .tooLong, .shuttingDown: true
    case .busy, .tooManyConnections, .recognitionFailed, .messageTooLarge: false
    }
  }

  /// The text as a sentence of its own, for answers written in sentences (HTTP's plain text):
  /// a capital letter first, a period last.
  var sentence: String {
    text.prefix(1).uppercased() + text.dropFirst() + "."
  }

  /// Whether the client went quiet (so it is not waiting for an answer).
  var isIdle: Bool {
    switch self {
    case .idle, .tooLittleAudio: true
    default: false
    }
  }

  /// The refusal of a session the session core turned away.
  init(_ refusal: AdmissionRefusal) {
    switch refusal {
    case .capacity: self = .busy
    case .shuttingDown: self = .shuttingDown
    }
  }

  /// A recognition that gave no words to trust.
  init(_ problem: RecognitionProblem) {
    self = .recognitionFailed(problem.message)
  }
}

extension Duration {
  /// The duration as the server's answers say it: `10 s`, `0.3 s`.
  var spokenSeconds: String {
    let seconds = timeInterval
    return seconds == seconds.rounded()
      ? "\(Int(seconds)) s" : String(format: "%.3g s", seconds)
  }
}
