import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import PocketSphinx

struct DecoderConfigurationTests {
  @Test func missingFilesTheCallerNamesAreNotFoundNamingThem() {
    let missing = URL(fileURLWithPath: "/nonexistent/file")
    let cases: [(DecoderConfiguration, RecognitionFailure.ModelFile)] = [
      (DecoderConfiguration(acousticModel: missing), .acousticModel),
      (DecoderConfiguration(search: .languageModel(missing)), .languageModel),
      (DecoderConfiguration(dictionary: missing), .dictionary),
      (DecoderConfiguration(search: .grammar(missing)), .grammar),
      (DecoderConfiguration(dictionary: missing, search: .keyphrase("go")), .dictionary),
      (
        DecoderConfiguration(
          acousticModel: missing, search: .grammar(URL(fileURLWithPath: "/tmp"))),
        .acousticModel
      ),
    ]
    for (configuration, kind) in cases {
      #expect(throws: RecognitionFailure.modelFileNotFound(kind, path: missing.path)) {
        try configuration.validate()
      }
    }
  }

  @Test func aDeviceGivenAsAModelFileIsNotARegularFile() {
    let zero = URL(fileURLWithPath: "/dev/zero")
    let reason = "not a regular file: a device or a pipe is never read to its end"
    #expect(throws: RecognitionFailure.dictionaryInvalid(path: "/dev/zero", reason: reason)) {
      try DecoderConfiguration(dictionary: zero).validate()
    }
    #expect(throws: RecognitionFailure.grammarInvalid(path: "/dev/zero", reason: reason)) {
      try DecoderConfiguration(search: .grammar(zero)).validate()
    }
    #expect(
      throws: RecognitionFailure.modelCorrupt("language model is not a regular file: /dev/zero")
    ) {
      try DecoderConfiguration(search: .languageModel(zero)).validate()
    }
  }

  @Test func acousticModelWithoutItsDefinitionIsNotFoundNamingTheDefinition() throws {
    let directory = try TemporaryDirectory()
    let configuration = DecoderConfiguration(acousticModel: directory.url)
    #expect(
      throws: RecognitionFailure.modelFileNotFound(
        .acousticModel, path: directory.url.appendingPathComponent("mdef").path)
    ) {
      try configuration.validate()
    }
  }

  @Test func argumentsNameTheModelFilesAndTheSearch() {
    let grammar = URL(fileURLWithPath: "/tmp/cards.gram")
    let configuration = DecoderConfiguration(search: .grammar(grammar))
    #expect(
      configuration.arguments == [
        "-hmm", DecoderConfiguration.defaultAcousticModel.path,
        "-dict", DecoderConfiguration.defaultDictionary.path,
        "-jsgf", grammar.path,
      ])
  }

  @Test func endOfUtteranceSilenceBecomesPocketSphinxPostSpeechFrames() {
    var configuration = DecoderConfiguration()
    #expect(!configuration.arguments.contains("-vad_postspeech"))
    configuration.endOfUtteranceSilence = 1.25
    #expect(configuration.arguments.suffix(2) == ["-vad_postspeech", "125"])
  }
}
