import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import PocketSphinx

@Suite(
  .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
struct DecoderTests {
  @Test func goForwardDecodesToGoForwardTenMeters() throws {
    let decoder = try Decoder(configuration: DecoderConfiguration(model: .default))
    let events = try decode(try samples(ofRaw: SpeechTestData.goForward), with: decoder)
    #expect(utteranceWords(events) == ["go", "forward", "ten", "meters"])
    #expect(events.contains { if case .partial = $0 { true } else { false } })
  }

  @Test func longUtterancesAreEndedEarly() throws {
    var configuration = DecoderConfiguration(model: .default)
    configuration.maximumUtteranceDuration = 1
    let decoder = try Decoder(configuration: configuration)
    let events = try decode(try samples(ofRaw: SpeechTestData.goForward), with: decoder)
    let utterances = events.filter { if case .utterance = $0 { true } else { false } }
    #expect(utterances.count >= 2)
  }

  @Test func corruptLanguageModelIsModelCorrupt() throws {
    let directory = try TemporaryDirectory()
    let lm = directory.url.appendingPathComponent("broken.lm.bin")
    try Data("not a language model".utf8).write(to: lm)
    let error = #expect(throws: SpeechClient.Failure.self) {
      try Decoder(
        configuration: DecoderConfiguration(
          model: .custom(acousticModel: nil, languageModel: lm, dictionary: nil)))
    }
    guard case .modelCorrupt = error else {
      Issue.record("expected modelCorrupt, got \(String(describing: error))")
      return
    }
  }

  @Test func fillerAndVariantWordsAreCleanedUp() {
    #expect(Decoder.baseWord("forward(2)") == "forward")
    #expect(Decoder.baseWord("(2)") == "(2)")
    #expect(Decoder.baseWord("ten") == "ten")
    #expect(Decoder.isFiller("<sil>") && Decoder.isFiller("[NOISE]") && Decoder.isFiller("</s>"))
    #expect(!Decoder.isFiller("go"))
  }
}
