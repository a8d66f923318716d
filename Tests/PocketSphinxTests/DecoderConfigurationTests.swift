import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import PocketSphinx

struct DecoderConfigurationTests {
  @Test func missingFilesTheRequestNamesAreNotFoundNamingThem() {
    let missing = URL(fileURLWithPath: "/nonexistent/file")
    let cases: [(SpeechRecognitionRequest.Model, SpeechClient.Failure.ModelFile)] = [
      (.custom(acousticModel: missing, languageModel: nil, dictionary: nil), .acousticModel),
      (.custom(acousticModel: nil, languageModel: missing, dictionary: nil), .languageModel),
      (.custom(acousticModel: nil, languageModel: nil, dictionary: missing), .dictionary),
      (.grammar(missing), .grammar),
      (.keyphrase("go", dictionary: missing), .dictionary),
      (.grammar(URL(fileURLWithPath: "/tmp"), acousticModel: missing), .acousticModel),
    ]
    for (model, kind) in cases {
      #expect(throws: SpeechClient.Failure.modelFileNotFound(kind, path: missing.path)) {
        try DecoderConfiguration(model: model).validate()
      }
    }
  }

  @Test func acousticModelWithoutItsDefinitionIsNotFoundNamingTheDefinition() throws {
    let directory = try TemporaryDirectory()
    let configuration = DecoderConfiguration(
      model: .custom(acousticModel: directory.url, languageModel: nil, dictionary: nil))
    #expect(
      throws: SpeechClient.Failure.modelFileNotFound(
        .acousticModel, path: directory.url.appendingPathComponent("mdef").path)
    ) {
      try configuration.validate()
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
