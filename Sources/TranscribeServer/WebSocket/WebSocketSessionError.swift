import Foundation
import SpeechClient

/// Why a WebSocket stream ends other than by the client's `{"eof" : 1}`: each has a message the
/// client gets as `{"error": "…"}` and a close code.
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
public enum WebSocketSessionError: Error, Equatable, Sendable {
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
  /// A message larger than the limit.
  case frameTooLarge(bytes: Int, limit: Int)
  /// No message for the idle timeout.
  case idle(Duration)
  /// Audio arrived during the idle timeout, but less than renews it: a trickle that would
  /// otherwise hold a session place.
  case tooLittleAudio(received: Duration, within: Duration, renewal: Duration)
  /// The session ran longer than the maximum.
  case sessionTooLong(Duration)
  /// Recognition failed.
  case recognitionFailed(String)
  /// Every session place is taken.
  case capacity
  /// The server is shutting down.
  case shuttingDown
  /// A Realtime session asked for without `intent=transcription` (the intent it named, if any).
  case unsupportedIntent(String?)

  /// The close code the stream ends with.
  public var closeCode: UInt16 {
    switch self {
    case .shuttingDown: 1001
    case .unsupportedMessage: 1003
    case .malformedJSON, .unknownConfigurationField, .invalidConfigurationValue, .oddLengthFrame:
      1007
    case .configurationAfterAudio, .idle, .tooLittleAudio, .sessionTooLong, .unsupportedIntent:
      1008
    case .frameTooLarge: 1009
    case .recognitionFailed: 1011
    case .capacity: 1013
    }
  }

  /// What the client is told, in a sentence that names the fix.
  public var message: String {
    switch self {
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
    case .frameTooLarge(let bytes, let limit):
      "a message of \(bytes) bytes is over the limit of \(limit) bytes; send smaller chunks"
    case .idle(let timeout):
      "no audio for \(timeout.spokenSeconds); the stream was closed"
    case .tooLittleAudio(let received, let within, let renewal):
      IdleVerdict.tooLittleAudioMessage(
        received: received, within: within, renewal: renewal)
    case .sessionTooLong(let limit):
      "the session reached its maximum length of \(limit.spokenSeconds); start a new one"
    case .recognitionFailed(let reason):
      "recognition failed: \(reason)"
    case .capacity:
      AdmissionRefusal.capacity.message
    case .shuttingDown:
      AdmissionRefusal.shuttingDown.message
    case .unsupportedIntent(let intent):
      "this server runs transcription sessions only"
        + (intent.map { ", not intent=\($0)" } ?? "")
        + ": connect to /v1/realtime?intent=transcription"
    }
  }

  /// The limit an idle timeout that elapsed was.
  init(_ verdict: IdleVerdict) {
    switch verdict {
    case .idle(let timeout): self = .idle(timeout)
    case .tooLittleAudio(let received, let within, let renewal):
      self = .tooLittleAudio(received: received, within: within, renewal: renewal)
    }
  }

  /// The refusal of a stream the session core turned away.
  init(_ refusal: AdmissionRefusal) {
    switch refusal {
    case .capacity: self = .capacity
    case .shuttingDown: self = .shuttingDown
    }
  }

  /// A stream's recognition problem: a phrase list the engine cannot use is the client's
  /// (1007), anything else the server's (1011).
  init(_ problem: RecognitionProblem) {
    switch problem {
    case .wordNotInDictionary(let word):
      self = .invalidConfigurationValue(
        field: "phrase_list", reason: "no phrase is usable: '\(word)' is not in the dictionary")
    default:
      self = .recognitionFailed(problem.message)
    }
  }

  /// Whether a stream that ends with this error first gets its last words: a limit or a
  /// shutdown (the client did nothing wrong), not the client's mistakes or a failure.
  var deliversLastWords: Bool {
    switch self {
    case .idle, .tooLittleAudio, .sessionTooLong, .shuttingDown: true
    default: false
    }
  }

  /// How a stream that ends with this error reads in its log.
  var outcome: SessionOutcome {
    switch self {
    case .idle: .idleTimeout
    case .tooLittleAudio: .tooLittleAudio
    case .sessionTooLong: .tooLong
    case .shuttingDown: .shutdown
    case .recognitionFailed, .capacity: .failed(message)
    case .malformedJSON, .unknownConfigurationField, .invalidConfigurationValue,
      .configurationAfterAudio, .unsupportedMessage, .oddLengthFrame, .frameTooLarge,
      .unsupportedIntent:
      .badInput(message)
    }
  }

  /// Whether the client went quiet (so it is not waiting for an answer).
  var isIdle: Bool {
    switch self {
    case .idle, .tooLittleAudio: true
    default: false
    }
  }

  /// The close frame's reason: the message, cut to fit a control frame (123 bytes).
  var closeReason: String {
    var reason = ""
    for character in message {
      if reason.utf8.count + String(character).utf8.count > 123 { break }
      reason.append(character)
    }
    return reason
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
