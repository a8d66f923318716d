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
}
