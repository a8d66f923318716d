import Foundation
import SpeechClient

/// Why a Wyoming connection gets an `error` event (`text`, `code`) and is closed, each a
/// sentence that names the fix: the problems every protocol shares (``SessionProblem``), rendered
/// with Wyoming's codes, and the client's mistakes in Wyoming's framing and events.
///
/// | code | when |
/// | --- | --- |
/// | `header-too-long`, `data-too-long`, `payload-too-long` | a part of an event over its limit |
/// | `bad-json`, `bad-event` | a header or data block that is not a JSON object, a missing `type`, a bad length |
/// | `unknown-model`, `unsupported-language` | `transcribe` names what this server does not have |
/// | `too-many-hotwords` | `transcribe`'s names, terms or context hold more than hotwords' limits |
/// | `audio-before-start`, `unexpected-event` | events in the wrong order |
/// | `unsupported-audio` | a rate, width or channel count that is not PCM this server reads |
/// | `idle-timeout`, `too-little-audio`, `session-too-long` | the server's limits (after the last words) |
/// | `busy`, `shutting-down` | no session place now |
/// | `recognition-failed` | the engine failed |
enum WyomingProblem: Error, Equatable, Sendable {
  /// A header line longer than the limit (or no end of line within it).
  case headerTooLong(limit: Int)
  /// A `data_length` over the limit.
  case dataTooLong(bytes: Int, limit: Int)
  /// A `payload_length` over the limit.
  case payloadTooLong(bytes: Int, limit: Int)
  /// A header line or data block that is not a JSON object.
  case notJSON(part: String)
  /// A header without a string `type`, or with a length that is not a whole number of bytes.
  case badHeader(String)
  /// `transcribe` names a model this server does not have.
  case unknownModel(name: String, available: [String])
  /// `transcribe` asks for a language the models do not speak.
  case unsupportedLanguage(String)
  /// `transcribe`'s names and terms are over the limits of hotwords.
  case badHotwords(Hotwords.Problem)
  /// `audio-chunk` or `audio-stop` without `audio-start` first.
  case audioBeforeStart(event: String)
  /// An event that cannot come now (e.g. `transcribe` while audio streams).
  case unexpectedEvent(event: String, expected: String)
  /// An audio format this server cannot read, or a chunk that does not hold whole frames.
  case unsupportedAudio(String)
  /// A problem every protocol shares: a limit, the server's state, a failure.
  case session(SessionProblem)

  /// The `code` of the `error` event.
  var code: String {
    switch self {
    case .headerTooLong: "header-too-long"
    case .dataTooLong: "data-too-long"
    case .payloadTooLong, .session(.messageTooLarge): "payload-too-long"
    case .notJSON: "bad-json"
    case .badHeader: "bad-event"
    case .unknownModel: "unknown-model"
    case .unsupportedLanguage: "unsupported-language"
    case .badHotwords: "too-many-hotwords"
    case .audioBeforeStart: "audio-before-start"
    case .unexpectedEvent: "unexpected-event"
    case .unsupportedAudio: "unsupported-audio"
    case .session(.idle): "idle-timeout"
    case .session(.tooLittleAudio): "too-little-audio"
    case .session(.tooLong): "session-too-long"
    case .session(.busy), .session(.tooManyConnections): "busy"
    case .session(.shuttingDown): "shutting-down"
    case .session(.recognitionFailed): "recognition-failed"
    }
  }

  /// The `text` of the `error` event: what went wrong and what to do.
  var text: String {
    switch self {
    case .headerTooLong(let limit):
      "an event's header line must end with a newline within \(limit) bytes; send one JSON "
        + "object per line"
    case .dataTooLong(let bytes, let limit):
      "data_length \(bytes) is over the limit of \(limit) bytes; send less data"
    case .payloadTooLong(let bytes, let limit):
      "payload_length \(bytes) is over the limit of \(limit) bytes; send smaller audio chunks"
    case .notJSON(let part):
      "the \(part) is not a JSON object; each event is one JSON header line "
        + "({\"type\": …}), then data_length bytes of JSON, then payload_length bytes"
    case .badHeader(let reason):
      "bad event header: \(reason)"
    case .unknownModel(let name, let available):
      "there is no model '\(name)' here; use one of \(available.joined(separator: ", ")) "
        + "(describe lists them), or leave out name"
    case .unsupportedLanguage(let language):
      "language '\(language)' is not served: the models here speak English (en)"
    case .badHotwords(let problem):
      "transcribe's names and terms (hotwords) \(problem); send fewer or shorter ones"
    case .audioBeforeStart(let event):
      "\(event) came before audio-start; send transcribe, audio-start, audio-chunk…, "
        + "audio-stop"
    case .unexpectedEvent(let event, let expected):
      "\(event) cannot come now; expected \(expected)"
    case .unsupportedAudio(let reason):
      "unsupported audio: \(reason)"
    case .session(let problem):
      problem.text
    }
  }

  /// The refusal of a connection the session core turned away.
  init(_ refusal: AdmissionRefusal) {
    self = .session(SessionProblem(refusal))
  }

  /// Whether a connection that ends with this problem first gets the transcript of the audio
  /// so far: the server's limits and a shutdown (the client did nothing wrong).
  var deliversLastWords: Bool {
    guard case .session(let problem) = self else { return false }
    return problem.deliversLastWords
  }

  /// How a session that ends with this problem reads in its log.
  var outcome: SessionOutcome {
    switch self {
    case .session(let problem): problem.outcome
    case .headerTooLong, .dataTooLong, .payloadTooLong, .notJSON, .badHeader, .unknownModel,
      .unsupportedLanguage, .badHotwords, .audioBeforeStart, .unexpectedEvent, .unsupportedAudio:
      .badInput(text)
    }
  }

  /// The `error` event.
  var event: WyomingEvent {
    WyomingEvent("error", data: ["text": .string(text), "code": .string(code)])
  }
}
