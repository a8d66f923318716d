import Foundation
import SpeechClient
import Testing

@testable import PocketSphinx

struct DecoderConfigurationTests {
  @Test func missingAcousticModelIsModelMissingNamingIt() {
    let configuration = DecoderConfiguration(
      model: .custom(
        acousticModel: URL(fileURLWithPath: "/nonexistent/en-us"), languageModel: nil,
        dictionary: nil))
    let error = #expect(throws: SpeechClient.Failure.self) { try configuration.validate() }
    guard case .modelMissing(let message) = error else {
      Issue.record("expected modelMissing, got \(String(describing: error))")
      return
    }
    #expect(message.contains("/nonexistent/en-us"))
  }

  @Test func missingGrammarIsModelMissing() {
    let configuration = DecoderConfiguration(
      model: .grammar(URL(fileURLWithPath: "/nonexistent.gram")))
    let error = #expect(throws: SpeechClient.Failure.self) { try configuration.validate() }
    guard case .modelMissing = error else {
      Issue.record("expected modelMissing, got \(String(describing: error))")
      return
    }
  }

  @Test func argumentsNameTheModelFilesAndTheSearch() {
    let grammar = URL(fileURLWithPath: "/tmp/cards.gram")
    let configuration = DecoderConfiguration(model: .grammar(grammar))
    #expect(
      configuration.arguments == [
        "-hmm", DecoderConfiguration.defaultAcousticModel.path,
        "-dict", DecoderConfiguration.defaultDictionary.path,
        "-jsgf", grammar.path,
      ])
  }

  @Test func endOfUtteranceSilenceBecomesPocketSphinxPostSpeechFrames() {
    var configuration = DecoderConfiguration(model: .default)
    #expect(!configuration.arguments.contains("-vad_postspeech"))
    configuration.endOfUtteranceSilence = 1.25
    #expect(configuration.arguments.suffix(2) == ["-vad_postspeech", "125"])
  }
}
