import Foundation
import SpeechClient

/// Why a WebSocket stream ends other than by the client's `{"eof" : 1}`: each has a message the
/// client gets as `{"error": "…"}` (a Realtime client as an `error` event) and a close code.
/// The problems every protocol shares are ``SessionProblem``'s, rendered here; the rest are the
/// client's mistakes in vosk's protocol.
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
  /// A problem every protocol shares (``SessionProblem``): a limit, the server's state, a
  /// failure.
  case session(SessionProblem)
  /// A text message is not JSON (or not an object).
  case malformedJSON(String)
  /// A configuration field the server does not know.
  case unknownConfigurationField(String)
  /// A configuration field with a value the server cannot use.
  case invalidConfigurationValue(field: String, reason: String)
  /// A configuration sent after audio.
  case configurationAfterAudio
  /// A text message that is neither a configuration nor the end of the stream.
  case unsupportedMessage(String)
  /// A binary frame with an odd number of bytes (16-bit samples come in pairs).
  case oddLengthFrame(bytes: Int)
  /// A Realtime session asked for without `intent=transcription` (the intent it named, if any).
  case unsupportedIntent(String?)

  /// The close code the stream ends with.
  var closeCode: UInt16 {
    switch self {
    case .session(.shuttingDown): 1001
    case .unsupportedMessage: 1003
    case .malformedJSON, .unknownConfigurationField, .invalidConfigurationValue, .oddLengthFrame:
      1007
    case .configurationAfterAudio, .unsupportedIntent, .session(.idle), .session(.tooLittleAudio),
      .session(.tooLong):
      1008
    case .session(.messageTooLarge): 1009
    case .session(.recognitionFailed): 1011
    case .session(.busy), .session(.tooManyConnections): 1013
    }
  }

  /// What the client is told, in a sentence that names the fix.
  var message: String {
    switch self {
    case .session(let problem):
      problem.text
    case .malformedJSON(let reason):
      "text messages must be JSON objects ({\"config\": {…}} or {\"eof\" : 1}): \(reason)"
    case .unknownConfigurationField(let field):
      "unknown configuration field '\(field)'; known: sample_rate, words, max_alternatives, "
        + "phrase_list"
    case .invalidConfigurationValue(let field, let reason):
      "invalid configuration value for '\(field)': \(reason)"
    case .configurationAfterAudio:
      "the configuration must be the first message, before any audio"
    case .unsupportedMessage(let text):
      "unsupported text message \(text); send {\"config\": {…}} first, then binary audio, "
        + "then {\"eof\" : 1}"
    case .oddLengthFrame(let bytes):
      "audio frames must hold whole 16-bit samples; got \(bytes) bytes"
    case .unsupportedIntent(let intent):
      "this server runs transcription sessions only"
        + (intent.map { ", not intent=\($0)" } ?? "")
        + ": connect to /v1/realtime?intent=transcription"
    }
  }

  /// The refusal of a stream the session core turned away.
  init(_ refusal: AdmissionRefusal) {
    self = .session(SessionProblem(refusal))
  }

  /// A stream's recognition problem: a phrase list the engine cannot use is the client's
  /// (1007), anything else the server's (1011).
  init(_ problem: RecognitionProblem) {
    switch problem {
    case .wordNotInDictionary(let word):
      self = .invalidConfigurationValue(
        field: "phrase_list", reason: "no phrase is usable: '\(word)' is not in the dictionary")
    default:
      self = .session(SessionProblem(problem))
    }
  }

  /// Whether a stream that ends with this error first gets its last words: a limit or a
  /// shutdown (the client did nothing wrong), not the client's mistakes or a failure.
  var deliversLastWords: Bool {
    guard case .session(let problem) = self else { return false }
    return problem.deliversLastWords
  }

  /// How a stream that ends with this error reads in its log.
  var outcome: SessionOutcome {
    guard case .session(let problem) = self else { return .badInput(message) }
    return problem.outcome
  }

  /// Whether the client went quiet (so it is not waiting for an answer).
  var isIdle: Bool {
    guard case .session(let problem) = self else { return false }
    return problem.isIdle
  }

  /// The close frame's reason: the message, cut to fit a control frame
  /// (``ServerConfiguration/closeReasonBytes``).
  var closeReason: String {
    var reason = ""
    for character in message {
      if reason.utf8.count + String(character).utf8.count > ServerConfiguration.closeReasonBytes {
        break
      }
      reason.append(character)
    }
    return reason
  }
}
