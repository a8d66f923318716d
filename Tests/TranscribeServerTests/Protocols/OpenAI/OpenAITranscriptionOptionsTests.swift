import SpeechClient
import Testing

@testable import TranscribeServer

@Suite struct OpenAITranscriptionOptionsTests {
  @Test func defaultsAreJSONWithSegmentTimestamps() throws {
    let options = try OpenAITranscriptionOptions(fields: ["model": ["whisper-1"]])
    #expect(options.responseFormat == .json)
    #expect(options.timestampGranularities == [.segment])
    #expect(options.model == "whisper-1")
  }

  @Test func acceptedButIgnoredFieldsAreKept() throws {
    let options = try OpenAITranscriptionOptions(fields: [
      "language": ["en"], "prompt": ["Austen"], "temperature": ["0.2"], "stream": ["false"],
      "timestamp_granularities": ["word"], "response_format": ["verbose_json"],
    ])
    #expect(options.language == "en")
    #expect(options.prompt == "Austen")
    #expect(options.temperature == 0.2)
    #expect(options.timestampGranularities == [.word])
  }

  @Test(arguments: ["en", "EN", "english", "en-GB", "en_US", ""])
  func englishIsEveryServersLanguage(language: String) throws {
    let options = try OpenAITranscriptionOptions(fields: ["language": [language]])
    #expect(try options.requestedLanguage(on: ServerConfiguration()) == .english)
  }

  @Test func anotherLanguageNamesWhatTheServerSpeaks() {
    #expect(
      throws: OpenAIError.invalidField(
        "language", value: "fr", expected: "en (this server's model is English)")
    ) {
      try OpenAITranscriptionOptions(fields: ["language": ["fr"]])
        .requestedLanguage(on: ServerConfiguration())
    }
  }

  @Test func aServerWithWhisperTakesItsLanguagesByCodeOrNameAndAuto() throws {
    var configuration = ServerConfiguration()
    configuration.languages = [
      ServedLanguage(code: "en", name: "english"), ServedLanguage(code: "de", name: "german"),
    ]
    for (given, expected) in [
      ("de", SpeechRecognitionRequest.Language.code("de")), ("German", .code("de")),
      ("de-AT", .code("de")), ("de_DE", .code("de")), ("auto", .automatic), ("en", .english),
    ] {
      let options = try OpenAITranscriptionOptions(fields: ["language": [given]])
      #expect(try options.requestedLanguage(on: configuration) == expected, "\(given)")
    }
    #expect(
      throws: OpenAIError.invalidField(
        "language", value: "xx",
        expected: "a language code Whisper knows (e.g. de, fr, es), or auto")
    ) {
      try OpenAITranscriptionOptions(fields: ["language": ["xx"]])
        .requestedLanguage(on: configuration)
    }
    #expect(configuration.languageName("de") == "german")
    #expect(configuration.languageName("en") == "english")
  }

  @Test func streamTrueStreamsJSONOrTextAndFalseOrNothingDoesNot() throws {
    #expect(try OpenAITranscriptionOptions(fields: [:]).stream == false)
    #expect(try OpenAITranscriptionOptions(fields: ["stream": ["false"]]).stream == false)
    #expect(try OpenAITranscriptionOptions(fields: ["stream": ["True"]]).stream == true)
    #expect(
      try OpenAITranscriptionOptions(fields: ["stream": ["true"], "response_format": ["text"]])
        .stream == true)
  }

  @Test(arguments: ["srt", "vtt", "verbose_json"])
  func formatsThatDoNotStreamRefuseStreamTrue(format: String) {
    #expect(
      throws: OpenAIError.invalidField(
        "stream", value: "true",
        expected: "false unless response_format is json or text (the formats that stream)")
    ) {
      try OpenAITranscriptionOptions(fields: ["stream": ["true"], "response_format": [format]])
    }
  }

  @Test func timestampGranularitiesBesideStreamTrueAreTheStreamsTimes() throws {
    let streamed = try OpenAITranscriptionOptions(fields: [
      "stream": ["true"], "timestamp_granularities[]": ["word", "segment"],
    ])
    #expect(streamed.streamedTimestamps == [.word, .segment])
    // verbose_json keeps its own default; a stream without granularities carries no times.
    #expect(streamed.timestampGranularities == [.segment])
    #expect(try OpenAITranscriptionOptions(fields: ["stream": ["true"]]).streamedTimestamps == [])
    #expect(
      try OpenAITranscriptionOptions(fields: [
        "response_format": ["verbose_json"], "timestamp_granularities[]": ["word"],
      ]).streamedTimestamps == [])
    // Without a stream, granularities still need verbose_json.
    #expect(
      throws: OpenAIError.invalidField(
        "timestamp_granularities[]", value: "word",
        expected:
          "no timestamp granularities unless response_format is verbose_json or stream is true")
    ) {
      try OpenAITranscriptionOptions(fields: [
        "stream": ["false"], "timestamp_granularities[]": ["word"],
      ])
    }
    #expect(
      throws: OpenAIError.invalidField(
        "timestamp_granularities[]", value: "letter", expected: "word or segment")
    ) {
      try OpenAITranscriptionOptions(fields: [
        "stream": ["true"], "timestamp_granularities[]": ["letter"],
      ])
    }
  }

  @Test func includeLogprobsAsksForTheTokensLogProbabilitiesInJSONOrAStream() throws {
    #expect(try OpenAITranscriptionOptions(fields: [:]).includesLogprobs == false)
    #expect(
      try OpenAITranscriptionOptions(fields: ["include[]": ["logprobs"]]).includesLogprobs)
    #expect(
      try OpenAITranscriptionOptions(fields: [
        "include[]": ["logprobs"], "response_format": ["text"], "stream": ["true"],
      ]).includesLogprobs)
    #expect(throws: OpenAIError.invalidField("include[]", value: "tokens", expected: "logprobs")) {
      try OpenAITranscriptionOptions(fields: ["include[]": ["tokens"]])
    }
    #expect(
      throws: OpenAIError.invalidField(
        "include[]", value: "logprobs",
        expected: "no logprobs unless response_format is json or the answer is streamed")
    ) {
      try OpenAITranscriptionOptions(fields: [
        "include[]": ["logprobs"], "response_format": ["verbose_json"],
      ])
    }
  }

  @Test func chunkingStrategyIsAutoOrServerVADAsJSONOrAsTheSDKsFields() throws {
    #expect(try OpenAITranscriptionOptions(fields: [:]).chunkingStrategy == nil)
    let auto = try OpenAITranscriptionOptions(fields: ["chunking_strategy": ["auto"]])
    #expect(auto.chunkingStrategy == .auto)
    #expect(auto.chunkingStrategy?.voiceActivity == nil)
    let json = try OpenAITranscriptionOptions(fields: [
      "chunking_strategy": [
        #"{"type": "server_vad", "threshold": 0.7, "prefix_padding_ms": 300, "silence_duration_ms": 800}"#
      ]
    ])
    #expect(
      json.chunkingStrategy
        == .serverVAD(threshold: 0.7, prefixPaddingMilliseconds: 300, silenceMilliseconds: 800))
    #expect(
      json.chunkingStrategy?.voiceActivity
        == VoiceActivityTuning(threshold: 0.7, minimumSilence: 0.8, judgesSentences: false))
    let sdk = try OpenAITranscriptionOptions(fields: [
      "chunking_strategy[type]": ["server_vad"], "chunking_strategy[silence_duration_ms]": ["1500"],
    ])
    #expect(
      sdk.chunkingStrategy
        == .serverVAD(threshold: nil, prefixPaddingMilliseconds: nil, silenceMilliseconds: 1500))
    #expect(
      sdk.chunkingStrategy?.voiceActivity
        == VoiceActivityTuning(minimumSilence: 1.5, judgesSentences: false))
  }

  @Test(arguments: [
    (["chunking_strategy": ["manual"]], "auto or a JSON object"),
    (["chunking_strategy[type]": ["semantic_vad"]], "auto or type server_vad"),
    (
      ["chunking_strategy[type]": ["server_vad"], "chunking_strategy[threshold]": ["1.5"]],
      "between 0 and 1"
    ),
    (
      ["chunking_strategy[type]": ["server_vad"], "chunking_strategy[silence_duration_ms]": ["5"]],
      "silence_duration_ms as whole milliseconds from 100 to 10000"
    ),
    (
      ["chunking_strategy[type]": ["server_vad"], "chunking_strategy[eagerness]": ["high"]],
      "type, threshold, prefix_padding_ms and silence_duration_ms"
    ),
  ])
  func aChunkingStrategyTheServerCannotFollowIsRefused(
    fields: [String: [String]], expected: String
  ) {
    do {
      _ = try OpenAITranscriptionOptions(fields: fields)
      Issue.record("accepted \(fields)")
    } catch {
      guard case .invalidField(let name, _, let because) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(name == "chunking_strategy")
      #expect(because.contains(expected), "\(because)")
    }
  }
}
