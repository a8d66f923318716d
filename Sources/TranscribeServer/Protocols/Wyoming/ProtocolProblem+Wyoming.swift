import SpeechClient

extension ProtocolProblem {
  /// A Wyoming client's mistakes in its framing and events.
  enum Wyoming: Equatable, Sendable {
    /// A header line longer than the limit (or no end of line within it).
    case headerTooLong(limit: Int)
    /// A `data_length` over the limit.
    case dataTooLong(bytes: Int, limit: Int)
    /// A `payload_length` over the limit.
    case payloadTooLong(bytes: Int, limit: Int)
    /// A header line or data block that is not a JSON object.
    case notJSON(part: String)
    /// A header without a string `type`.
    case missingType
    /// A header whose `data` is not a JSON object.
    case dataNotObject
    /// A header whose `field` (`data_length`, `payload_length`) is not a whole number of bytes.
    case badLength(field: String)
    /// `transcribe` names a model this server does not have.
    case unknownModel(name: String, available: [String])
    /// `transcribe` asks for a language the models do not speak.
    case unsupportedLanguage(String)
    /// `transcribe`'s names and terms are over the limits of hotwords.
    case badHotwords(Hotwords.Problem)
    /// `audio-chunk` or `audio-stop` without `audio-start` first.
    case audioBeforeStart(event: String)
    /// An event that cannot come now (e.g. `transcribe` while audio streams).
    case unexpectedEvent(event: String, expected: Phase)
    /// An audio event without its format's `field` (the values `range` holds).
    case missingFormatField(event: String, field: FormatField, range: ClosedRange<Int>)
    /// An audio event whose format's `field` has a `value` outside what this server reads.
    case formatOutOfRange(event: String, field: FormatField, value: Int, range: ClosedRange<Int>)

    /// Where a connection stands, as an unexpected event's answer says what may come.
    enum Phase: Equatable, Sendable {
      case idle
      case streaming
      case finishing

      var expected: String {
        switch self {
        case .idle: "transcribe or audio-start"
        case .streaming: "audio-chunk or audio-stop"
        case .finishing: "nothing until the transcript"
        }
      }
    }

    /// A field of an audio format (`rate`, `width`, `channels`).
    enum FormatField: String, Equatable, Sendable {
      case rate
      case width
      case channels

      /// What the field is.
      var what: String {
        switch self {
        case .rate: "a sample rate in Hz"
        case .width: "a sample width in bytes"
        case .channels: "a channel count"
        }
      }
    }
    /// An `audio-chunk` of `bytes` that do not hold whole frames.
    case partialFrames(bytes: Int, width: Int, channels: Int)
    /// An `audio-chunk` at another rate than its audio started at.
    case rateChanged(rate: Int, startedAt: Int)

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
      case .missingType:
        "bad event header: it has no \"type\" string; every event needs one"
      case .dataNotObject:
        "bad event header: \"data\" must be a JSON object"
      case .badLength(let field):
        "bad event header: \"\(field)\" must be a whole number of bytes, 0 or more"
      case .unknownModel(let name, let available):
        "there is no model '\(name)' here; use one of \(available.joined(separator: ", ")) "
          + "(describe lists them), or leave out name"
      case .unsupportedLanguage(let language):
        "language '\(language)' is not served: describe lists each model's languages (English "
          + "everywhere; others with Whisper)"
      case .badHotwords(let problem):
        "transcribe's names and terms (hotwords) \(problem); send fewer or shorter ones"
      case .audioBeforeStart(let event):
        "\(event) came before audio-start; send transcribe, audio-start, audio-chunk…, "
          + "audio-stop"
      case .unexpectedEvent(let event, let phase):
        "\(event) cannot come now; expected \(phase.expected)"
      case .missingFormatField(let event, let field, let range):
        "unsupported audio: \(event) needs \"\(field.rawValue)\" (\(field.what)), a whole number from "
          + "\(range.lowerBound) to \(range.upperBound)"
      case .formatOutOfRange(let event, let field, let value, let range):
        "unsupported audio: \(event) \"\(field.rawValue)\" \(value) is not \(field.what) this "
          + "server reads "
          + "(\(range.lowerBound) to \(range.upperBound)); send 16-bit (width 2) PCM, e.g. "
          + "16000 Hz mono"
      case .partialFrames(let bytes, let width, let channels):
        "unsupported audio: an audio-chunk of \(bytes) bytes does not hold whole frames of "
          + "\(width * channels) bytes (width \(width) × \(channels) channel(s))"
      case .rateChanged(let rate, let startedAt):
        "unsupported audio: an audio-chunk at \(rate) Hz in audio that started at "
          + "\(startedAt) Hz; send a new audio-start to change the rate"
      }
    }
  }
}
