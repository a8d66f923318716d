import Foundation
import SpeechClient

/// Why a WebSocket stream ends other than by the client's `{"eof" : 1}`: each has a message the
/// client gets as `{"error": "…"}` (a Realtime client as an `error` event) and a close code.
/// Every problem is the catalogue's (``SessionProblem``, its words written there); the two
/// WebSocket protocols, vosk and Realtime, only render it, with this close code.
///
/// | close code | when |
/// | --- | --- |
/// | 1001 going away | the server shuts down (after the last words) |
/// | 1003 unsupported data | a text message that is neither a configuration nor the end |
/// | 1007 invalid payload | malformed JSON, an unknown or invalid configuration field, an odd-length PCM frame |
/// | 1008 policy violation | no audio for the idle timeout, a session longer than the maximum, a configuration after audio, a Realtime session without `intent=transcription` |
/// | 1009 message too big | a message over the frame limit |
/// | 1011 internal error | recognition failed (model missing, decoder failure) |
/// | 1013 try again later | every session place is taken |
enum WebSocketSessionError: Error, Equatable, Sendable {
  /// The problem, from the server's catalogue (``SessionProblem``): a limit, the server's
  /// state, a failure, or the client's mistake in vosk's protocol (``ProtocolProblem/Vosk``).
  case session(SessionProblem)

  /// A mistake in vosk's protocol.
  static func input(_ problem: ProtocolProblem.Vosk) -> Self {
    .session(.badInput(.vosk(problem)))
  }

  /// A text message that is not JSON.
  static var invalidJSON: Self { .input(.invalidJSON) }
  /// A text message that is JSON but not an object.
  static var notAnObject: Self { .input(.notAnObject) }
  /// A configuration field the server does not know.
  static func unknownConfigurationField(_ field: String) -> Self {
    .input(.unknownConfigurationField(field))
  }
  /// A configuration field with a value the server cannot use.
  static func invalidConfigurationValue(
    field: String, reason: ProtocolProblem.Vosk.Requirement
  ) -> Self {
    .input(.invalidConfigurationValue(field: field, reason: reason))
  }
  /// A configuration sent after audio.
  static var configurationAfterAudio: Self { .input(.configurationAfterAudio) }
  /// A text message that is neither a configuration nor the end of the stream.
  static func unsupportedMessage(_ text: String) -> Self { .input(.unsupportedMessage(text)) }
  /// A binary frame with an odd number of bytes (16-bit samples come in pairs).
  static func oddLengthFrame(bytes: Int) -> Self { .input(.oddLengthFrame(bytes: bytes)) }
  /// A Realtime session asked for without `intent=transcription` (the intent it named, if any).
  static func unsupportedIntent(_ intent: String?) -> Self { .input(.unsupportedIntent(intent)) }

  /// The close code the stream ends with.
  var closeCode: UInt16 {
    switch self {
    case .session(.shuttingDown): 1001
    case .session(.badInput(.vosk(.unsupportedMessage))): 1003
    case .session(.badInput(.vosk(.configurationAfterAudio))),
      .session(.badInput(.vosk(.unsupportedIntent))), .session(.idle),
      .session(.tooLittleAudio), .session(.tooLong):
      1008
    case .session(.badInput): 1007
    case .session(.messageTooLarge): 1009
    case .session(.recognitionFailed): 1011
    case .session(.busy), .session(.tooManyConnections): 1013
    }
  }

  /// The problem in the catalogue.
  var problem: SessionProblem {
    switch self {
    case .session(let problem): problem
    }
  }

  /// What the client is told, in a sentence that names the fix (the catalogue's).
  var message: String { problem.text }

  /// The refusal of a stream the session core turned away.
  init(_ refusal: AdmissionRefusal) {
    self = .session(SessionProblem(refusal))
  }

  /// A stream's recognition problem: a phrase list the engine cannot use is the client's
  /// (1007), anything else the server's (1011).
  init(_ problem: RecognitionProblem) {
    switch problem {
    case .wordNotInDictionary(let word):
      self = .input(.phraseNotInDictionary(word))
    default:
      self = .session(SessionProblem(problem))
    }
  }

  /// Whether a stream that ends with this error first gets its last words: a limit or a
  /// shutdown (the client did nothing wrong), not the client's mistakes or a failure.
  var deliversLastWords: Bool { problem.deliversLastWords }

  /// How a stream that ends with this error reads in its log.
  var outcome: SessionOutcome { problem.outcome }

  /// Whether the client went quiet (so it is not waiting for an answer).
  var isIdle: Bool { problem.isIdle }

  /// The close frame's reason: the message, cut to fit a control frame
  /// (``ServerConfiguration/closeReasonBytes``).
  var closeReason: String { message.closeReason }
}
