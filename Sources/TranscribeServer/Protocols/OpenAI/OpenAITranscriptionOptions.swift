import Foundation
import SpeechClient

/// The form fields of `POST /v1/audio/transcriptions` besides `file`, checked.
///
/// - `model`: `moonshine` or `pocketsphinx` picks that engine (`GET /v1/models` lists the
///   server's); any other name (`whisper-1`, `gpt-4o-transcribe`, …) means the server's default.
/// - `response_format`: `json` (default), `text`, `srt`, `vtt` or `verbose_json`.
/// - `timestamp_granularities[]`: `segment` and/or `word`, with `verbose_json` (as OpenAI
///   requires; by default `segment`), or with `stream=true` (ours, not OpenAI's: each
///   `transcript.text.delta` then carries its utterance's `start` and `end`, its `words` with
///   their times, or both, in seconds from the start of the file; the captions page asks for
///   `word` to write subtitles).
/// - `language`: `en` (or `english`, `en-…`); on a server that runs Whisper, any language it
///   knows (`de`, `german`, `de-DE`) or `auto`, and another language than English is decoded
///   by Whisper. The server checks it (``ServerConfiguration/servedLanguage(_:)``).
/// - `prompt`: Whisper's initial prompt; its names become hotwords Moonshine favours
///   (pocketsphinx takes none): each run
///   of capitalised words (`Aoife Ni Bhriain`), each word with inner capitals or digits
///   (`iPhone`), and each sentence's first word unless it is a common one (`The`, `Please`);
///   see `Hotwords.phrases(inPrompt:)`. Ordinary lower-case words are left out.
/// - `temperature`: accepted (0…1) and ignored: decoding is deterministic, reported as 0.
/// - `include[]`: `logprobs` adds each token's log probability (`logprobs`) to `json` and to
///   the events of a stream: Moonshine's decoder tokens; pocketsphinx has no tokens, so each of
///   its words is one, with the log of its confidence.
/// - `chunking_strategy`: `auto` (the server's voice-activity settings), or
///   `{"type": "server_vad", "threshold", "prefix_padding_ms", "silence_duration_ms"}` (as JSON,
///   or as the SDKs send it, `chunking_strategy[type]` and so on): the detector's threshold and
///   the pause that ends an utterance, for this upload. `prefix_padding_ms` is checked and has
///   no effect: each utterance keeps half of the pause before it as padding.
/// - `stream`: `true` answers with server-sent events (`transcript.text.delta` for each
///   utterance as it is decoded, then `transcript.text.done`), with `json` or `text` only (as
///   OpenAI requires); `false` (the default) answers once the whole upload is decoded.
public struct OpenAITranscriptionOptions: Equatable, Sendable {
  /// How the transcript is returned.
  public var responseFormat: OpenAIResponseFormat = .json
  /// Which timestamps `verbose_json` includes.
  public var timestampGranularities: Set<OpenAITimestampGranularity> = [.segment]
  /// The `model` the client named, if any.
  public var model: String?
  /// The engine `model` names, `nil` for the server's default.
  public var engine: SpeechRecognitionRequest.EngineName? {
    model.flatMap { SpeechRecognitionRequest.EngineName(rawValue: $0.lowercased()) }
  }
  /// The `language` the client named, if any.
  public var language: String?
  /// The `prompt` the client sent, if any.
  public var prompt: String?
  /// The prompt's names, which Moonshine favours.
  public var hotwords: Hotwords { Hotwords(prompt.map(Hotwords.phrases(inPrompt:)) ?? []) }
  /// The `temperature` the client asked for, if any.
  public var temperature: Double?
  /// Whether the transcript is streamed as server-sent events.
  public var stream = false
  /// Which timestamps a stream's deltas carry (none unless `timestamp_granularities[]` names
  /// them together with `stream=true`).
  public var streamedTimestamps: Set<OpenAITimestampGranularity> = []
  /// Whether `include[]` asks for the tokens' log probabilities.
  public var includesLogprobs = false
  /// How the upload is cut into utterances, when `chunking_strategy` says.
  public var chunkingStrategy: OpenAIChunkingStrategy?

  /// The defaults: JSON, segment timestamps.
  public init() {}

  /// The language `language` names on a server with `configuration`: the server's default
  /// language when none is named.
  ///
  /// - Throws: ``OpenAIError`` for a language the server does not decode.
  public func requestedLanguage(
    on configuration: ServerConfiguration
  ) throws(OpenAIError) -> SpeechRecognitionRequest.Language {
    guard let language else { return configuration.defaultLanguage }
    guard let served = configuration.servedLanguage(language) else {
      throw .invalid(
        "language", value: language,
        expected: configuration.languages.isEmpty ? .english : .servedLanguage)
    }
    return served
  }

  /// Reads the fields of an upload (each name with its values in order).
  public init(fields: [String: [String]]) throws(OpenAIError) {
    func value(_ name: String) -> String? {
      fields[name]?.last
    }
    model = value("model")
    prompt = value("prompt")
    if let prompt, let problem = hotwords.problem {
      throw .invalid("prompt", value: prompt, expected: .hotwordPrompt(problem))
    }
    if let format = value("response_format") {
      guard let responseFormat = OpenAIResponseFormat(rawValue: format) else {
        throw .invalid("response_format", value: format, expected: .responseFormat)
      }
      self.responseFormat = responseFormat
    }
    if let language = value("language"), !language.isEmpty {
      self.language = language
    }
    if let text = value("temperature"), !text.isEmpty {
      guard let temperature = Double(text), (0...1).contains(temperature) else {
        throw .invalid("temperature", value: text, expected: .temperature)
      }
      self.temperature = temperature
    }
    if let text = value("stream"), !text.isEmpty {
      switch text.lowercased() {
      case "true": stream = true
      case "false": stream = false
      default: throw .invalid("stream", value: text, expected: .boolean)
      }
      guard !stream || responseFormat == .json || responseFormat == .text else {
        throw .invalid("stream", value: text, expected: .streamOnlyJSONOrText)
      }
    }
    let granularities =
      (fields["timestamp_granularities[]"] ?? []) + (fields["timestamp_granularities"] ?? [])
    if !granularities.isEmpty {
      var set = Set<OpenAITimestampGranularity>()
      for text in granularities {
        guard let granularity = OpenAITimestampGranularity(rawValue: text) else {
          throw .invalid("timestamp_granularities[]", value: text, expected: .granularity)
        }
        set.insert(granularity)
      }
      // A stream is told apart first: its events are ours to extend, the formats are OpenAI's.
      if stream {
        streamedTimestamps = set
      } else {
        guard responseFormat == .verboseJSON else {
          throw .invalid(
            "timestamp_granularities[]", value: granularities.joined(separator: ","),
            expected: .granularitiesOnlyVerbose)
        }
        timestampGranularities = set
      }
    }
    for text in (fields["include[]"] ?? []) + (fields["include"] ?? []) {
      guard text == "logprobs" else {
        throw .invalid("include[]", value: text, expected: .logprobs)
      }
      guard responseFormat == .json || stream else {
        throw .invalid("include[]", value: text, expected: .logprobsOnlyJSONOrStream)
      }
      includesLogprobs = true
    }
    chunkingStrategy = try OpenAIChunkingStrategy(fields: fields)
  }
}

/// The `response_format` of a transcription.
public enum OpenAIResponseFormat: String, Equatable, Sendable, CaseIterable {
  /// `{"text": "…"}`.
  case json
  /// The transcript as plain text.
  case text
  /// SubRip subtitles.
  case srt
  /// WebVTT subtitles.
  case vtt
  /// `task`, `language`, `duration`, `text`, and `segments` and/or `words`.
  case verboseJSON = "verbose_json"
}

/// A `timestamp_granularities[]` value.
public enum OpenAITimestampGranularity: String, Equatable, Hashable, Sendable {
  /// Each utterance's start and end (`segments`).
  case segment
  /// Each word's start and end (`words`).
  case word
}

/// `chunking_strategy`: how an upload is cut into utterances.
public enum OpenAIChunkingStrategy: Equatable, Sendable {
  /// The server's own settings.
  case auto
  /// The voice-activity detector with these settings (each `nil` for the server's).
  case serverVAD(threshold: Double?, prefixPaddingMilliseconds: Int?, silenceMilliseconds: Int?)

  /// The detector settings for the recognizer; `nil` for the server's.
  public var voiceActivity: VoiceActivityTuning? {
    switch self {
    case .auto: nil
    case .serverVAD(let threshold, _, let silence):
      // A fixed pause, as OpenAI's server VAD has it.
      VoiceActivityTuning(
        threshold: threshold, minimumSilence: silence.map { Double($0) / 1000 },
        judgesSentences: false)
    }
  }

  /// Reads `chunking_strategy` (`auto` or a JSON object) or its bracketed fields
  /// (`chunking_strategy[type]`, …); `nil` when there is neither.
  init?(fields: [String: [String]]) throws(OpenAIError) {
    let prefix = "chunking_strategy["
    var object: [String: String] = [:]
    for (name, values) in fields where name.hasPrefix(prefix) && name.hasSuffix("]") {
      object[String(name.dropFirst(prefix.count).dropLast())] = values.last
    }
    if let text = fields["chunking_strategy"]?.last, !text.isEmpty {
      if text == "auto" {
        self = .auto
        return
      }
      guard
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
      else {
        throw .invalid("chunking_strategy", value: text, expected: .chunkingStrategy)
      }
      for (key, value) in parsed {
        object[key] = (value as? String) ?? (value as? NSNumber)?.stringValue ?? "\(value)"
      }
    }
    guard !object.isEmpty else { return nil }
    guard object["type"] == "server_vad" else {
      throw .invalid("chunking_strategy", value: object["type"] ?? "", expected: .chunkingType)
    }
    for key in object.keys
    where !["type", "threshold", "prefix_padding_ms", "silence_duration_ms"].contains(key) {
      throw .invalid("chunking_strategy", value: key, expected: .chunkingKeys)
    }
    var threshold: Double?
    if let text = object["threshold"] {
      guard let value = Double(text), value > 0, value < 1 else {
        throw .invalid("chunking_strategy", value: text, expected: .threshold)
      }
      threshold = value
    }
    func milliseconds(_ key: String, _ range: ClosedRange<Int>) throws(OpenAIError) -> Int? {
      guard let text = object[key] else { return nil }
      guard let value = Int(text) ?? Double(text).flatMap({ Int(exactly: $0) }),
        range.contains(value)
      else {
        throw .invalid(
          "chunking_strategy", value: text, expected: .namedMilliseconds(key, range))
      }
      return value
    }
    self = .serverVAD(
      threshold: threshold,
      prefixPaddingMilliseconds: try milliseconds(
        "prefix_padding_ms", ServerConfiguration.turnDetectionPrefixPadding),
      silenceMilliseconds: try milliseconds(
        "silence_duration_ms", ServerConfiguration.turnDetectionSilence))
  }
}
