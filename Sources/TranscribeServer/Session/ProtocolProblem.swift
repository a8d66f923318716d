import Foundation
import SpeechClient

/// A problem in one protocol's own terms: the client's mistakes in that protocol's messages, and
/// what a field takes (``Expected``). The catalogue's third part, beside ``SessionProblem`` (what
/// every protocol shares) and ``RequestRefusal`` (refusals before any session): every sentence
/// the server says to a client about a problem is written in these three types and in this
/// file's extension of ``OpenAIError``.
///
/// A protocol only renders a problem: vosk's close code (``WebSocketSessionError``), a Realtime
/// `error` event's code and param (``RealtimeError``), a Wyoming `error` event's code
/// (``WyomingProblem``), OpenAI's status, type and code (``OpenAIError``). A session that ends
/// for one reads `bad_input` in its log (``SessionProblem/badInput(_:)``).
///
/// ```swift
/// ProtocolProblem.vosk(.oddLengthFrame(bytes: 3)).text
/// // "audio frames must hold whole 16-bit samples; got 3 bytes"
/// ```
enum ProtocolProblem: Equatable, Sendable {
  /// A vosk stream's mistake, which ends the stream.
  case vosk(Vosk)
  /// A Wyoming client's mistake, which ends the connection.
  case wyoming(Wyoming)
  // A Realtime client's mistakes (``Realtime``) end nothing: each is an `error` event
  // (``RealtimeError``) and the session goes on.

  /// What the client is told, in the protocol's own style (vosk's and Wyoming's are phrases
  /// without a capital or a full stop).
  var text: String {
    switch self {
    case .vosk(let problem): problem.text
    case .wyoming(let problem): problem.text
    }
  }

  /// A vosk stream's mistakes (and a Realtime session asked for without its intent, which is
  /// refused the same way).
  enum Vosk: Equatable, Sendable {
    /// A text message that is not JSON.
    case invalidJSON
    /// A text message that is JSON but not an object.
    case notAnObject
    /// A configuration field the server does not know.
    case unknownConfigurationField(String)
    /// A configuration field with a value the server cannot use: what it must be.
    case invalidConfigurationValue(field: String, reason: Requirement)
    /// A phrase list none of whose phrases the engine can use: `word` is not in its dictionary.
    case phraseNotInDictionary(String)
    /// A configuration sent after audio.
    case configurationAfterAudio
    /// A text message that is neither a configuration nor the end of the stream.
    case unsupportedMessage(String)
    /// A binary frame with an odd number of bytes (16-bit samples come in pairs).
    case oddLengthFrame(bytes: Int)
    /// A Realtime session asked for without `intent=transcription` (the intent it named).
    case unsupportedIntent(String?)

    /// What a configuration value must be, or what is wrong with it.
    enum Requirement: Equatable, Sendable {
      /// `{"eof": 1}`.
      case one
      case object
      case sampleRate(ClosedRange<Int>)
      case boolean
      case alternatives(maximum: Int)
      case listOfStrings
      case language(servesOthers: Bool)
      /// A phrase list over its limits (a grammar's, or Moonshine's tighter ones for hotwords),
      /// worded as the CLI words them.
      case phrases(Hotwords.Problem)

      var text: String {
        switch self {
        case .one: "must be 1"
        case .object: "must be an object"
        case .sampleRate(let rates):
          "must be a number of Hz from \(rates.lowerBound) to \(rates.upperBound)"
        case .boolean: "must be true or false"
        case .alternatives(let maximum): "must be a whole number from 0 to \(maximum)"
        case .listOfStrings: "must be a list of strings"
        case .language(let servesOthers):
          servesOthers
            ? "must be a language code Whisper knows (e.g. de, fr, es), or auto"
            : "must be en (this server's models are English)"
        case .phrases(let problem): "\(problem)"
        }
      }
    }

    var text: String {
      switch self {
      case .invalidJSON:
        "text messages must be JSON objects ({\"config\": {…}} or {\"eof\" : 1}): not valid JSON"
      case .notAnObject:
        "text messages must be JSON objects ({\"config\": {…}} or {\"eof\" : 1}): not an object"
      case .unknownConfigurationField(let field):
        "unknown configuration field '\(field)'; known: sample_rate, words, max_alternatives, "
          + "phrase_list"
      case .invalidConfigurationValue(let field, let reason):
        "invalid configuration value for '\(field)': \(reason.text)"
      case .phraseNotInDictionary(let word):
        "invalid configuration value for 'phrase_list': no phrase is usable: '\(word)' is not "
          + "in the dictionary"
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
  }

  /// A Realtime client's mistakes in its events, written as OpenAI's Realtime API words them.
  enum Realtime: Equatable, Sendable {
    /// A text message that is not a JSON object.
    case invalidJSON
    /// A required parameter is missing.
    case missingParameter(String)
    /// A parameter the event does not have.
    case unknownParameter(String)
    /// A parameter's value (`value`, as briefly quoted) is not one it takes (`expected`).
    case invalidValue(param: String, value: String, expected: Expected)
    /// An event type the server does not know; `supported` lists the ones it does.
    case unknownEventType(String, supported: [String])
    /// `audio` that is not base64.
    case invalidBase64
    /// A binary WebSocket message.
    case binaryMessage
    /// Audio that does not hold whole 16-bit samples.
    case oddLength(bytes: Int)
    /// A commit of less audio than the shortest commit.
    case commitEmpty(milliseconds: Double)
    /// A format change while the buffer holds audio.
    case formatChangeWithAudio

    var text: String {
      switch self {
      case .invalidJSON:
        "The message is not a JSON object. Each client event is a JSON object with a 'type', "
          + "such as {\"type\": \"input_audio_buffer.commit\"}."
      case .missingParameter(let param):
        "Missing required parameter: '\(param)'."
      case .unknownParameter(let param):
        "Unknown parameter: '\(param)'."
      case .invalidValue(let param, let value, let expected):
        "Invalid value for '\(param)': \(value). Expected \(expected.text)."
      case .unknownEventType(let type, let supported):
        "Invalid value: '\(String(type.prefix(ServerConfiguration.quotedJSONValue)))'. "
          + "Supported values are: " + supported.map { "'\($0)'" }.joined(separator: ", ") + "."
      case .invalidBase64:
        "Invalid 'audio': the audio must be base64-encoded bytes in the session's format "
          + "(16-bit PCM at \(RealtimeAudioFormat.pcmRate / 1000) kHz by default)."
      case .binaryMessage:
        "Binary messages are not part of the Realtime API: send audio as "
          + "input_audio_buffer.append events with base64 'audio'."
      case .oddLength(let bytes):
        "Invalid 'audio': 16-bit PCM comes in whole samples of 2 bytes; got \(bytes) bytes."
      case .commitEmpty(let milliseconds):
        "Error committing input audio buffer: buffer too small. Expected at least "
          + "\(Int(ServerConfiguration.realtimeMinimumCommitMilliseconds))ms of audio, but buffer "
          + "only has " + String(format: "%.2f", milliseconds) + "ms of audio."
      case .formatChangeWithAudio:
        "The audio format cannot change while the input audio buffer holds audio; commit or "
          + "clear the buffer first."
      }
    }
  }

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

  /// What a Realtime parameter or an upload's form field takes, as the answer about a wrong
  /// value says it ("expected …"); written once where both protocols take the same.
  enum Expected: Equatable, Sendable {
    // Both: a prompt's names become hotwords; the model.
    case hotwordPrompt(Hotwords.Problem)
    case english
    case servedLanguage
    case noStreamedTranslation
    case whisperForLanguage
    case installedEngine
    // Realtime's session parameters.
    case object
    case array
    case string
    case nullOrObject
    case transcriptionSession
    case quoted(String)
    case realtimeFormat
    case onlyRate(Int, type: String)
    case eagerness
    case turnDetection
    case fraction
    case wholeMilliseconds(ClosedRange<Int>)
    // An upload's form fields.
    case responseFormat
    case granularity
    case granularitiesOnlyVerbose
    case temperature
    case boolean
    case streamOnlyJSONOrText
    case logprobs
    case logprobsOnlyJSONOrStream
    case chunkingStrategy
    case chunkingType
    case chunkingKeys
    case threshold
    case namedMilliseconds(String, ClosedRange<Int>)

    var text: String {
      switch self {
      case .hotwordPrompt(let problem):
        "a prompt naming at most \(Hotwords.maximumCount) names of at most "
          + "\(Hotwords.maximumLength) characters (its names \(problem))"
      case .english: "en (this server's model is English)"
      case .servedLanguage: "a language code Whisper knows (e.g. de, fr, es), or auto"
      case .noStreamedTranslation: "false (translations are not streamed)"
      case .whisperForLanguage:
        "whisper, or a model this server maps to its default (other languages than English and "
          + "translation are Whisper's)"
      case .installedEngine: "an engine installed on this server (GET /v1/models lists them)"
      case .object: "an object"
      case .array: "an array"
      case .string: "a string"
      case .nullOrObject: "null or an object"
      case .transcriptionSession: "'transcription' (this server only runs transcription sessions)"
      case .quoted(let value): "'\(value)'"
      case .realtimeFormat:
        "{\"type\": \"audio/pcm\", \"rate\": \(RealtimeAudioFormat.pcmRate)}, "
          + "{\"type\": \"audio/pcmu\"} or "
          + "{\"type\": \"audio/pcma\"}"
      case .onlyRate(let rate, let type): "\(rate) (the only rate of \(type))"
      case .eagerness: "'low', 'medium', 'high' or 'auto'"
      case .turnDetection: "'server_vad', 'semantic_vad', or null for turn detection off"
      case .fraction: "a number between 0 and 1 (exclusive)"
      case .wholeMilliseconds(let range):
        "whole milliseconds from \(range.lowerBound) to \(range.upperBound)"
      case .responseFormat: "json, text, srt, vtt or verbose_json"
      case .granularity: "word or segment"
      case .granularitiesOnlyVerbose:
        "no timestamp granularities unless response_format is verbose_json"
      case .temperature: "a number from 0 to 1"
      case .boolean: "true or false"
      case .streamOnlyJSONOrText:
        "false unless response_format is json or text (the formats that stream)"
      case .logprobs: "logprobs"
      case .logprobsOnlyJSONOrStream:
        "no logprobs unless response_format is json or the answer is streamed"
      case .chunkingStrategy: "auto or a JSON object with type server_vad"
      case .chunkingType: "auto or type server_vad"
      case .chunkingKeys: "type, threshold, prefix_padding_ms and silence_duration_ms"
      case .threshold: "a threshold between 0 and 1 (exclusive)"
      case .namedMilliseconds(let key, let range):
        "\(key) as whole milliseconds from \(range.lowerBound) to \(range.upperBound)"
      }
    }
  }

  /// An upload's reasons (`POST /v1/audio/transcriptions`) that the server words itself; the
  /// sentences of ``OpenAIError`` are written below, in this catalogue.
  enum Upload {
    /// What is wrong with a multipart body (``OpenAIError/malformedMultipart(_:)``'s reason).
    enum Multipart: Equatable, Sendable {
      /// A boundary line inside the `file` part, followed by other bytes.
      case boundaryInFile(delimiter: String)
      /// A boundary line or part header the parser cannot read.
      case syntax(delimiter: String)
      /// A `Content-Disposition` that is empty or not UTF-8.
      case unreadableDisposition
      /// A part's headers over the limit (in KiB).
      case headersTooLong(kibibytes: Int)
      /// Headers, or bytes before the first boundary, that keep growing past the limit.
      case unparsedTooLong(kibibytes: Int)
      /// More than one `file` part.
      case twoFileParts
      /// Text fields over the limit.
      case fieldsTooLong(limit: Int)
      /// The body ends inside the `file` part.
      case endsInFile

      var text: String {
        switch self {
        case .boundaryInFile(let delimiter):
          "the `file` part contains the boundary `\(delimiter)` followed by other bytes, so the "
            + "file ends there; send it with a boundary that does not occur in the file "
            + "(clients choose a long random one)"
        case .syntax(let delimiter):
          "it is not valid multipart/form-data: a boundary line (`\(delimiter)`) or a part's "
            + "header is malformed"
        case .unreadableDisposition:
          "a part's Content-Disposition header cannot be read: it is empty or not UTF-8 (a "
            + "file name in Latin-1?); send the file name in UTF-8, or leave it out"
        case .headersTooLong(let kibibytes):
          "a part's headers are longer than \(kibibytes) KiB"
        case .unparsedTooLong(let kibibytes):
          "a part's headers (or what comes before the first boundary) are longer than "
            + "\(kibibytes) KiB"
        case .twoFileParts:
          "it has more than one `file` part"
        case .fieldsTooLong(let limit):
          "its text fields are longer than \(limit) bytes"
        case .endsInFile:
          "the body ends inside the `file` part"
        }
      }
    }

    /// Why an upload could not be transcribed, for the reasons of ``OpenAIError/unreadableAudio(reason:)``
    /// and ``OpenAIError/recognitionFailed(_:)`` that the server finds itself (not a decoder's).
    enum Reason: Equatable, Sendable {
      case emptyFile
      case noTemporaryDirectory
      case noTemporaryFile
      case unwritableTemporaryFile(String)
      case cancelled

      var text: String {
        switch self {
        case .emptyFile: "the file is empty"
        case .noTemporaryDirectory: "cannot create a temporary directory for the upload"
        case .noTemporaryFile: "cannot create a temporary file for the upload"
        case .unwritableTemporaryFile(let error):
          "cannot write the upload to a temporary file: \(error)"
        case .cancelled: "the upload was cancelled"
        }
      }
    }
  }
}

extension OpenAIError {
  /// What went wrong and what to do, in one sentence, as OpenAI's API writes them.
  public var message: String {
    switch self {
    case .unauthorized:
      RequestRefusal.unauthorized.sentence
    case .noCapacity:
      SessionProblem.busy.sentence
    case .shuttingDown:
      SessionProblem.shuttingDown.sentence
    case .notMultipart(let contentType):
      "Send the audio as multipart/form-data with a `file` field (the request's "
        + "Content-Type is \(contentType.map { "`\($0)`" } ?? "missing"))."
    case .malformedMultipart(let problem):
      "The multipart/form-data body cannot be read: \(Self.sentence(problem))"
    case .missingField(let field):
      "The `\(field)` field is required."
    case .invalidField(let field, let value, let expected):
      "`\(value.cut(after: ServerConfiguration.quotedFieldValue))` is not a valid "
        + "`\(field)`: expected \(expected)."
    case .uploadTooLarge(let limit):
      "The upload is larger than this server's limit of \(Self.size(limit)) "
        + "(serve --max-upload-mb)."
    case .audioTooLong(let seconds, let limit):
      "The uploaded `file` holds \(Int(seconds.rounded(.up))) s of audio, more than this "
        + "server's limit of \(limit.components.seconds) s per upload (serve "
        + "--max-upload-seconds); split it into shorter files."
    case .uploadTooSlow(let rate, let grace):
      "The upload arrived too slowly: this server needs the body at "
        + "\(Self.size(rate))/s or more on average after its first "
        + "\(grace.spokenSeconds); send it over a faster connection."
    case .unreadableAudio(let reason):
      "The uploaded `file` is not audio this server can read (WAV, FLAC, OGG/Vorbis, "
        + "Opus, MP3, … as libsndfile reads them): \(Self.sentence(reason))"
    case .recognitionFailed(let reason):
      "Recognition failed on the server: \(Self.sentence(reason))"
    case .sessionTooLong(let limit):
      "The transcription took longer than this server allows "
        + "(\(limit.components.seconds) s, serve --max-session-seconds); send shorter audio."
    case .clientGone:
      "The client closed the connection before the answer."
    }
  }

  /// `text` ending with one period, however it ended.
  private static func sentence(_ text: String) -> String {
    var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    while text.hasSuffix(".") { text.removeLast() }
    return text + "."
  }

  private static func size(_ bytes: Int) -> String {
    if bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    return bytes % (1 << 10) == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
  }
}
