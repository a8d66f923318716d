import Foundation

/// A client's text message as ``RealtimeCodec`` reads it, before it reaches the session: the
/// JSON parsed and the audio decoded from base64 off the main actor.
enum RealtimeClientMessage: Equatable, Sendable {
  /// An event, with the client's `event_id` if it had one.
  case event(RealtimeClientEvent, eventID: String?)
  /// A message that is not an event this server reads (the error names its `event_id`).
  case invalid(RealtimeError)
  /// A message over the limit (``ServerConfiguration/maxFrameBytes``), not read.
  case tooLarge(bytes: Int)

  /// Reads `text`, a message of at most `limit` bytes.
  init(text: String, limit: Int) {
    let bytes = text.utf8.count
    guard bytes <= limit else {
      self = .tooLarge(bytes: bytes)
      return
    }
    let (event, eventID, error) = RealtimeClientEvent.parse(text)
    if let event {
      self = .event(event, eventID: eventID)
    } else {
      self = .invalid(error ?? .invalidJSON)
    }
  }
}

/// What a Realtime client sends: the events of a transcription session.
enum RealtimeClientEvent: Equatable, Sendable {
  /// `session.update`: the `session` object to apply.
  case sessionUpdate(RealtimeJSON)
  /// `input_audio_buffer.append`: the audio, decoded from base64 (bytes as sent, in the
  /// session's format).
  case append([UInt8])
  /// `input_audio_buffer.commit`.
  case commit
  /// `input_audio_buffer.clear`.
  case clear

  /// The client event types this server knows.
  static let types = [
    "session.update", "input_audio_buffer.append", "input_audio_buffer.commit",
    "input_audio_buffer.clear",
  ]

  /// Reads a text message; the error says what is wrong with it, naming the client's
  /// `event_id` when it had one.
  static func parse(
    _ text: String
  ) -> (event: RealtimeClientEvent?, eventID: String?, error: RealtimeError?) {
    guard let json = RealtimeJSON(parsing: text), json.isObject else {
      return (nil, nil, .invalidJSON)
    }
    let eventID = json["event_id"]?.stringValue
    func failure(_ error: RealtimeError) -> (RealtimeClientEvent?, String?, RealtimeError?) {
      var error = error
      error.eventID = eventID
      return (nil, eventID, error)
    }
    guard let type = json["type"]?.stringValue else {
      return failure(.missingParameter("type"))
    }
    switch type {
    case "session.update":
      guard let session = json["session"] else { return failure(.missingParameter("session")) }
      return (.sessionUpdate(session), eventID, nil)
    case "input_audio_buffer.append":
      guard let audio = json["audio"] else { return failure(.missingParameter("audio")) }
      guard let text = audio.stringValue,
        let data = Data(base64Encoded: text, options: [.ignoreUnknownCharacters]),
        text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+/=\r\n".contains($0)) })
      else {
        return failure(.invalidBase64)
      }
      return (.append([UInt8](data)), eventID, nil)
    case "input_audio_buffer.commit":
      return (.commit, eventID, nil)
    case "input_audio_buffer.clear":
      return (.clear, eventID, nil)
    default:
      return failure(.unknownEventType(type))
    }
  }
}

/// An `error` event's `error` object, shaped as OpenAI's Realtime API sends it.
struct RealtimeError: Error, Equatable, Sendable {
  /// `invalid_request_error` for the client's mistakes, `server_error` for the server's.
  var type = "invalid_request_error"
  var code: String?
  var message: String
  var param: String?
  /// The client event that caused it, when it had an `event_id`.
  var eventID: String?

  /// A client's mistake, with OpenAI's code and the parameter at fault; its words are the
  /// catalogue's (``ProtocolProblem/Realtime``).
  init(_ problem: ProtocolProblem.Realtime, code: String, param: String? = nil) {
    self.init(code: code, message: problem.text, param: param)
  }

  static let invalidJSON = RealtimeError(.invalidJSON, code: "invalid_json")

  static func missingParameter(_ param: String) -> RealtimeError {
    RealtimeError(.missingParameter(param), code: "missing_required_parameter", param: param)
  }

  static func unknownParameter(_ param: String) -> RealtimeError {
    RealtimeError(.unknownParameter(param), code: "unknown_parameter", param: param)
  }

  static func invalidValue(
    param: String, value: RealtimeJSON, expected: ProtocolProblem.Expected
  ) -> RealtimeError {
    RealtimeError(
      .invalidValue(param: param, value: value.brief, expected: expected), code: "invalid_value",
      param: param)
  }

  static func unknownEventType(_ type: String) -> RealtimeError {
    RealtimeError(
      .unknownEventType(type, supported: RealtimeClientEvent.types), code: "invalid_value",
      param: "type")
  }

  static let invalidBase64 = RealtimeError(.invalidBase64, code: "invalid_value", param: "audio")

  static let binaryMessage = RealtimeError(.binaryMessage, code: "invalid_value")

  static func oddLength(bytes: Int) -> RealtimeError {
    RealtimeError(.oddLength(bytes: bytes), code: "invalid_value", param: "audio")
  }

  static func commitEmpty(milliseconds: Double) -> RealtimeError {
    RealtimeError(
      .commitEmpty(milliseconds: milliseconds), code: "input_audio_buffer_commit_empty")
  }

  /// A message over the limit (``SessionProblem/messageTooLarge(bytes:limit:isUnread:)``).
  static func messageTooLarge(bytes: Int, limit: Int, isUnread: Bool = false) -> RealtimeError {
    RealtimeError(
      code: "message_too_large",
      message: SessionProblem.messageTooLarge(bytes: bytes, limit: limit, isUnread: isUnread)
        .sentence)
  }

  static let formatChangeWithAudio = RealtimeError(
    .formatChangeWithAudio, code: "invalid_value", param: "session.audio.input.format")

  /// The error event before the server closes a session for `error`.
  init(closing error: WebSocketSessionError) {
    switch error {
    case .session(.idle), .session(.tooLittleAudio):
      self.init(code: "idle_timeout", message: error.message)
    case .session(.tooLong): self.init(code: "session_expired", message: error.message)
    case .session(.shuttingDown):
      self.init(type: "server_error", code: "server_shutting_down", message: error.message)
    case .session(.messageTooLarge(let bytes, let limit, let isUnread)):
      self = .messageTooLarge(bytes: bytes, limit: limit, isUnread: isUnread)
    case .session(.busy), .session(.tooManyConnections):
      self.init(type: "server_error", code: "server_busy", message: error.message)
    case .session(.recognitionFailed):
      self.init(type: "server_error", code: "transcription_failed", message: error.message)
    case .session(.badInput(.vosk(.unsupportedIntent))):
      self.init(code: "invalid_intent", message: error.message, param: "intent")
    default: self.init(code: "invalid_request", message: error.message)
    }
  }

  init(
    type: String = "invalid_request_error", code: String?, message: String,
    param: String? = nil, eventID: String? = nil
  ) {
    self.type = type
    self.code = code
    self.message = message
    self.param = param
    self.eventID = eventID
  }

  var json: RealtimeJSON {
    .object([
      ("type", .string(type)),
      ("code", .optional(code)),
      ("message", .string(message)),
      ("param", .optional(param)),
      ("event_id", .optional(eventID)),
    ])
  }
}

/// What the server sends in a Realtime transcription session.
enum RealtimeServerEvent: Equatable, Sendable {
  /// `session.created` or `session.updated` (`isUpdate`) with the session's settings.
  case session(RealtimeConfiguration, isUpdate: Bool)
  /// `input_audio_buffer.speech_started`.
  case speechStarted(itemID: String, audioStartMilliseconds: Int)
  /// `input_audio_buffer.speech_stopped`.
  case speechStopped(itemID: String, audioEndMilliseconds: Int)
  /// `input_audio_buffer.timeout_triggered`: server VAD heard no speech for
  /// `idle_timeout_ms` of audio; the quiet audio is committed as an item of its own.
  case timeoutTriggered(itemID: String, audioStartMilliseconds: Int, audioEndMilliseconds: Int)
  /// `input_audio_buffer.committed`.
  case committed(itemID: String, previousItemID: String?)
  /// `input_audio_buffer.cleared`.
  case cleared
  /// `conversation.item.input_audio_transcription.delta`: more text of an item.
  case delta(itemID: String, text: String, logprobs: [OpenAITranscription.Logprob]?)
  /// `conversation.item.input_audio_transcription.completed`: an item's whole transcript.
  case completed(
    itemID: String, transcript: String, words: Int, logprobs: [OpenAITranscription.Logprob]?)
  /// `error`.
  case error(RealtimeError)

  /// The event's `type`.
  var type: String {
    switch self {
    case .session(_, let isUpdate): isUpdate ? "session.updated" : "session.created"
    case .speechStarted: "input_audio_buffer.speech_started"
    case .speechStopped: "input_audio_buffer.speech_stopped"
    case .timeoutTriggered: "input_audio_buffer.timeout_triggered"
    case .committed: "input_audio_buffer.committed"
    case .cleared: "input_audio_buffer.cleared"
    case .delta: "conversation.item.input_audio_transcription.delta"
    case .completed: "conversation.item.input_audio_transcription.completed"
    case .error: "error"
    }
  }

  /// The event as JSON text, with `eventID` as its `event_id`; `sessionID` and `defaultModel`
  /// fill the session's description.
  func json(eventID: String, sessionID: String, defaultModel: String) -> String {
    var fields: [(String, RealtimeJSON)] = [
      ("type", .string(type)), ("event_id", .string(eventID)),
    ]
    switch self {
    case .session(let configuration, _):
      fields.append(("session", configuration.json(id: sessionID, defaultModel: defaultModel)))
    case .speechStarted(let itemID, let start):
      fields += [("audio_start_ms", .int(start)), ("item_id", .string(itemID))]
    case .speechStopped(let itemID, let end):
      fields += [("audio_end_ms", .int(end)), ("item_id", .string(itemID))]
    case .timeoutTriggered(let itemID, let start, let end):
      fields += [
        ("audio_start_ms", .int(start)), ("audio_end_ms", .int(end)), ("item_id", .string(itemID)),
      ]
    case .committed(let itemID, let previous):
      fields += [("previous_item_id", .optional(previous)), ("item_id", .string(itemID))]
    case .cleared:
      break
    case .delta(let itemID, let text, let logprobs):
      fields += [
        ("item_id", .string(itemID)), ("content_index", .int(0)), ("delta", .string(text)),
      ]
      if let logprobs { fields.append(("logprobs", Self.json(logprobs))) }
    case .completed(let itemID, let transcript, let words, let logprobs):
      fields += [
        ("item_id", .string(itemID)), ("content_index", .int(0)),
        ("transcript", .string(transcript)),
      ]
      if let logprobs { fields.append(("logprobs", Self.json(logprobs))) }
      fields.append(
        (
          "usage",
          .object([
            ("type", .string("tokens")), ("input_tokens", .int(0)), ("output_tokens", .int(words)),
            ("total_tokens", .int(words)),
          ])
        ))
    case .error(let error):
      fields.append(("error", error.json))
    }
    return RealtimeJSON.object(fields).text
  }

  private static func json(_ logprobs: [OpenAITranscription.Logprob]) -> RealtimeJSON {
    .array(
      logprobs.map {
        .object([
          ("token", .string($0.token)), ("logprob", .double($0.logprob)),
          ("bytes", .array($0.bytes.map { .int(Int($0)) })),
        ])
      })
  }
}
