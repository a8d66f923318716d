import Foundation
import SpeechClient

/// Why a Wyoming connection gets an `error` event (`text`, `code`) and is closed: a problem of
/// the catalogue (``SessionProblem``, its words written there), which Wyoming renders with its
/// codes.
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
  /// The problem, from the server's catalogue (``SessionProblem``): a limit, the server's
  /// state, a failure, or the client's mistake in Wyoming's framing and events
  /// (``ProtocolProblem/Wyoming``).
  case session(SessionProblem)

  /// A mistake in Wyoming's framing or events.
  static func input(_ problem: ProtocolProblem.Wyoming) -> Self {
    .session(.badInput(.wyoming(problem)))
  }

  /// A header line longer than the limit (or no end of line within it).
  static func headerTooLong(limit: Int) -> Self { .input(.headerTooLong(limit: limit)) }
  /// A `data_length` over the limit.
  static func dataTooLong(bytes: Int, limit: Int) -> Self {
    .input(.dataTooLong(bytes: bytes, limit: limit))
  }
  /// A `payload_length` over the limit.
  static func payloadTooLong(bytes: Int, limit: Int) -> Self {
    .input(.payloadTooLong(bytes: bytes, limit: limit))
  }
  /// A header line or data block that is not a JSON object.
  static func notJSON(part: String) -> Self { .input(.notJSON(part: part)) }
  /// `transcribe` names a model this server does not have.
  static func unknownModel(name: String, available: [String]) -> Self {
    .input(.unknownModel(name: name, available: available))
  }
  /// `transcribe` asks for a language the models do not speak.
  static func unsupportedLanguage(_ language: String) -> Self {
    .input(.unsupportedLanguage(language))
  }
  /// `transcribe`'s names and terms are over the limits of hotwords.
  static func badHotwords(_ problem: Hotwords.Problem) -> Self { .input(.badHotwords(problem)) }
  /// `audio-chunk` or `audio-stop` without `audio-start` first.
  static func audioBeforeStart(event: String) -> Self { .input(.audioBeforeStart(event: event)) }
  /// An event that cannot come now (e.g. `transcribe` while audio streams).
  static func unexpectedEvent(event: String, expected: ProtocolProblem.Wyoming.Phase) -> Self {
    .input(.unexpectedEvent(event: event, expected: expected))
  }

  /// The problem in the catalogue.
  var problem: SessionProblem {
    switch self {
    case .session(let problem): problem
    }
  }

  /// The `code` of the `error` event.
  var code: String {
    switch problem {
    case .badInput(.wyoming(let mistake)):
      switch mistake {
      case .headerTooLong: "header-too-long"
      case .dataTooLong: "data-too-long"
      case .payloadTooLong: "payload-too-long"
      case .notJSON: "bad-json"
      case .missingType, .dataNotObject, .badLength: "bad-event"
      case .unknownModel: "unknown-model"
      case .unsupportedLanguage: "unsupported-language"
      case .badHotwords: "too-many-hotwords"
      case .audioBeforeStart: "audio-before-start"
      case .unexpectedEvent: "unexpected-event"
      case .missingFormatField, .formatOutOfRange, .partialFrames, .rateChanged:
        "unsupported-audio"
      }
    case .badInput: "bad-event"
    case .messageTooLarge: "payload-too-long"
    case .idle: "idle-timeout"
    case .tooLittleAudio: "too-little-audio"
    case .tooLong: "session-too-long"
    case .busy, .tooManyConnections: "busy"
    case .shuttingDown: "shutting-down"
    case .recognitionFailed: "recognition-failed"
    }
  }

  /// The `text` of the `error` event: what went wrong and what to do (the catalogue's).
  var text: String { problem.text }

  /// The refusal of a connection the session core turned away.
  init(_ refusal: AdmissionRefusal) {
    self = .session(SessionProblem(refusal))
  }

  /// Whether a connection that ends with this problem first gets the transcript of the audio
  /// so far: the server's limits and a shutdown (the client did nothing wrong).
  var deliversLastWords: Bool { problem.deliversLastWords }

  /// How a session that ends with this problem reads in its log.
  var outcome: SessionOutcome { problem.outcome }

  /// The `error` event.
  var event: WyomingEvent {
    WyomingEvent("error", data: ["text": .string(text), "code": .string(code)])
  }
}
