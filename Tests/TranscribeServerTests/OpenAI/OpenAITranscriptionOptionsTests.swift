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

  @Test(arguments: ["en", "EN", "english", "en-GB", ""])
  func englishIsTheOnlyLanguage(language: String) throws {
    _ = try OpenAITranscriptionOptions(fields: ["language": [language]])
  }

  @Test func anotherLanguageNamesWhatTheServerSpeaks() {
    #expect(
      throws: OpenAIError.invalidField(
        "language", value: "fr", expected: "en (this server's model is English)")
    ) {
      try OpenAITranscriptionOptions(fields: ["language": ["fr"]])
    }
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
}
