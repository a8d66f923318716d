import Foundation
import SpeechClient

/// A Realtime transcription session's settings, as `session.created` reports them and
/// `session.update` changes them.
///
/// - `audio.input.format`: `{"type": "audio/pcm", "rate": 24000}` (the default),
///   `{"type": "audio/pcmu"}` or `{"type": "audio/pcma"}`.
/// - `audio.input.transcription`: `model` (`moonshine` or `pocketsphinx` picks that engine,
///   any other name the server's default, as on `/v1/audio/transcriptions`), `language` (only
///   English), `prompt` (its names become hotwords Moonshine favours: runs of capitalised
///   words and words with inner capitals or digits, see `Hotwords.phrases(inPrompt:)`).
/// - `audio.input.turn_detection`: `{"type": "server_vad", "threshold", "prefix_padding_ms",
///   "silence_duration_ms", "idle_timeout_ms"}` (the default, with OpenAI's defaults: an item
///   ends after a fixed pause, `--endpointing fixed` with `silence_duration_ms` as `--silence`),
///   `{"type": "semantic_vad", "eagerness": "low|medium|high|auto"}` (an item ends when the
///   sentence does: `--endpointing sentence`; `auto` and `medium` keep the server's pauses,
///   `high` ends a finished sentence after 0.15 s and holds an unfinished one up to 1 s, `low`
///   after 0.5 s and up to 2.5 s), or `null`: the client commits each item.
/// - `audio.input.noise_reduction`: accepted (`null` or an object) and not applied.
/// - `include`: `["item.input_audio_transcription.logprobs"]` adds log probabilities.
struct RealtimeConfiguration: Equatable, Sendable {
  var format = RealtimeAudioFormat.pcm
  /// The transcription model the client named; `nil` until it names one.
  var model: String?
  var language: String?
  var prompt: String?
  /// The prompt's names, which Moonshine favours.
  var hotwords: Hotwords { Hotwords(prompt.map(Hotwords.phrases(inPrompt:)) ?? []) }
  var turnDetection: TurnDetection? = TurnDetection()
  var includesLogprobs = false
  /// The noise reduction the client asked for, echoed back.
  var noiseReduction: RealtimeJSON = .null

  /// Server VAD's settings (each field OpenAI's default until set), or semantic VAD's.
  struct TurnDetection: Equatable, Sendable {
    var threshold = 0.5
    var prefixPaddingMilliseconds = 300
    var silenceMilliseconds = 500
    var idleTimeoutMilliseconds: Int?
    /// `semantic_vad`'s eagerness (`low`, `medium`, `high`, `auto`); `nil` for `server_vad`.
    var eagerness: String?

    /// The eagerness values `semantic_vad` takes.
    static let eagernessValues = ["low", "medium", "high", "auto"]

    var json: RealtimeJSON {
      if let eagerness {
        return .object([("type", .string("semantic_vad")), ("eagerness", .string(eagerness))])
      }
      return .object([
        ("type", .string("server_vad")),
        ("threshold", .double(threshold)),
        ("prefix_padding_ms", .int(prefixPaddingMilliseconds)),
        ("silence_duration_ms", .int(silenceMilliseconds)),
        ("idle_timeout_ms", idleTimeoutMilliseconds.map { .int($0) } ?? .null),
      ])
    }
  }

  /// The include value that asks for log probabilities.
  static let logprobsInclude = "item.input_audio_transcription.logprobs"

  /// The engine ``model`` names, `nil` for the server's default.
  var engine: SpeechRecognitionRequest.EngineName? {
    model.flatMap { SpeechRecognitionRequest.EngineName(rawValue: $0.lowercased()) }
  }

  /// The detector settings for the recognizer, from server VAD's (a fixed pause) or semantic
  /// VAD's (sentence endpointing, its pauses from the eagerness).
  var voiceActivity: VoiceActivityTuning? {
    turnDetection.map {
      switch $0.eagerness {
      case nil:
        VoiceActivityTuning(
          threshold: $0.threshold, minimumSilence: Double($0.silenceMilliseconds) / 1000,
          judgesSentences: false)
      case "high":
        VoiceActivityTuning(minimumSilence: 0.15, judgesSentences: true, maximumSilence: 1)
      case "low":
        VoiceActivityTuning(minimumSilence: 0.5, judgesSentences: true, maximumSilence: 2.5)
      default:
        VoiceActivityTuning(judgesSentences: true)
      }
    }
  }

  /// The `session` object of `session.created` and `session.updated`.
  func json(id: String, defaultModel: String) -> RealtimeJSON {
    .object([
      ("type", .string("transcription")),
      ("object", .string("realtime.transcription_session")),
      ("id", .string(id)),
      (
        "audio",
        .object([
          (
            "input",
            .object([
              ("format", format.json),
              (
                "transcription",
                .object([
                  ("model", .string(model ?? defaultModel)),
                  ("language", .optional(language)),
                  ("prompt", .optional(prompt)),
                ])
              ),
              ("turn_detection", turnDetection?.json ?? .null),
              ("noise_reduction", noiseReduction),
            ])
          )
        ])
      ),
      ("include", .array(includesLogprobs ? [.string(Self.logprobsInclude)] : [])),
    ])
  }

  /// This configuration with `session` (a `session.update`'s) applied; fields it leaves out
  /// keep their values.
  func updated(
    with session: RealtimeJSON, engines: [SpeechRecognitionRequest.EngineName],
    languages: [ServedLanguage] = []
  ) throws(RealtimeError) -> RealtimeConfiguration {
    guard session.isObject else {
      throw .invalidValue(param: "session", value: session, expected: .object)
    }
    var next = self
    try Self.checkKeys(
      of: session, in: "session",
      known: ["type", "audio", "include", "object", "id", "expires_at", "client_secret"])
    if let type = session["type"] {
      guard type.stringValue == "transcription" else {
        throw .invalidValue(
          param: "session.type", value: type,
          expected: .transcriptionSession)
      }
    }
    if let include = session["include"] {
      guard case .array(let values) = include else {
        throw .invalidValue(param: "session.include", value: include, expected: .array)
      }
      for value in values where value.stringValue != Self.logprobsInclude {
        throw .invalidValue(
          param: "session.include", value: value, expected: .quoted(Self.logprobsInclude))
      }
      next.includesLogprobs = !values.isEmpty
    }
    guard let audio = session["audio"] else { return next }
    try Self.checkKeys(of: audio, in: "session.audio", known: ["input"])
    guard let input = audio["input"] else { return next }
    try Self.checkKeys(
      of: input, in: "session.audio.input",
      known: ["format", "transcription", "turn_detection", "noise_reduction"])
    if let format = input["format"] {
      next.format = try Self.format(format)
    }
    if let transcription = input["transcription"], transcription != .null {
      try Self.checkKeys(
        of: transcription, in: "session.audio.input.transcription",
        known: ["model", "language", "prompt"])
      if let model = transcription["model"], model != .null {
        guard let name = model.stringValue else {
          throw .invalidValue(
            param: "session.audio.input.transcription.model", value: model,
            expected: .string)
        }
        if let engine = SpeechRecognitionRequest.EngineName(rawValue: name.lowercased()),
          !engines.contains(engine)
        {
          throw .invalidValue(
            param: "session.audio.input.transcription.model", value: model,
            expected: .installedEngine)
        }
        next.model = name
      }
      if let language = transcription["language"] {
        if let text = language.stringValue, !text.isEmpty {
          // English everywhere; with Whisper, every language it knows.
          guard languages.served(text) != nil else {
            throw .invalidValue(
              param: "session.audio.input.transcription.language", value: language,
              expected: languages.isEmpty ? .english : .servedLanguage)
          }
          next.language = text
        } else {
          next.language = nil
        }
      }
      if let prompt = transcription["prompt"] {
        next.prompt = prompt.stringValue
        if let problem = next.hotwords.problem {
          throw .invalidValue(
            param: "session.audio.input.transcription.prompt", value: prompt,
            expected: .hotwordPrompt(problem))
        }
      }
    }
    if let turnDetection = input["turn_detection"] {
      next.turnDetection = try Self.turnDetection(turnDetection)
    }
    if let noiseReduction = input["noise_reduction"] {
      guard noiseReduction == .null || noiseReduction.isObject else {
        throw .invalidValue(
          param: "session.audio.input.noise_reduction", value: noiseReduction,
          expected: .nullOrObject)
      }
      next.noiseReduction = noiseReduction
    }
    return next
  }

  private static func format(_ value: RealtimeJSON) throws(RealtimeError) -> RealtimeAudioFormat {
    let param = "session.audio.input.format"
    guard let type = value["type"]?.stringValue, let format = RealtimeAudioFormat(rawValue: type)
    else { throw .invalidValue(param: param, value: value, expected: .realtimeFormat) }
    if let rate = value["rate"], rate != .null, rate.intValue != format.sampleRate {
      throw .invalidValue(
        param: param + ".rate", value: rate,
        expected: .onlyRate(format.sampleRate, type: type))
    }
    return format
  }

  private static func turnDetection(
    _ value: RealtimeJSON
  ) throws(RealtimeError) -> TurnDetection? {
    let param = "session.audio.input.turn_detection"
    guard value != .null else { return nil }
    if value["type"]?.stringValue == "semantic_vad" {
      try checkKeys(
        of: value, in: param, known: ["type", "eagerness", "create_response", "interrupt_response"])
      var detection = TurnDetection()
      detection.eagerness = "auto"
      if let eagerness = value["eagerness"], eagerness != .null {
        guard let name = eagerness.stringValue, TurnDetection.eagernessValues.contains(name)
        else {
          throw .invalidValue(
            param: param + ".eagerness", value: eagerness,
            expected: .eagerness)
        }
        detection.eagerness = name
      }
      return detection
    }
    guard value["type"]?.stringValue == "server_vad" else {
      throw .invalidValue(
        param: param + ".type", value: value["type"] ?? .null,
        expected: .turnDetection)
    }
    try checkKeys(
      of: value, in: param,
      known: [
        "type", "threshold", "prefix_padding_ms", "silence_duration_ms", "idle_timeout_ms",
        "create_response", "interrupt_response",
      ])
    var detection = TurnDetection()
    if let threshold = value["threshold"], threshold != .null {
      guard let number = threshold.doubleValue, number > 0, number < 1 else {
        throw .invalidValue(
          param: param + ".threshold", value: threshold,
          expected: .fraction)
      }
      detection.threshold = number
    }
    func milliseconds(
      _ key: String, _ range: ClosedRange<Int>
    ) throws(RealtimeError) -> Int? {
      guard let field = value[key], field != .null else { return nil }
      guard let number = field.intValue, range.contains(number) else {
        throw .invalidValue(
          param: param + "." + key, value: field,
          expected: .wholeMilliseconds(range))
      }
      return number
    }
    if let padding = try milliseconds(
      "prefix_padding_ms", ServerConfiguration.turnDetectionPrefixPadding)
    {
      detection.prefixPaddingMilliseconds = padding
    }
    if let silence = try milliseconds(
      "silence_duration_ms", ServerConfiguration.turnDetectionSilence)
    {
      detection.silenceMilliseconds = silence
    }
    detection.idleTimeoutMilliseconds = try milliseconds(
      "idle_timeout_ms", ServerConfiguration.turnDetectionIdleTimeout)
    return detection
  }

  private static func checkKeys(
    of value: RealtimeJSON, in path: String, known: Set<String>
  ) throws(RealtimeError) {
    guard value.isObject else {
      throw .invalidValue(param: path, value: value, expected: .object)
    }
    for key in value.keys where !known.contains(key) {
      throw .unknownParameter(path + "." + key)
    }
  }
}
