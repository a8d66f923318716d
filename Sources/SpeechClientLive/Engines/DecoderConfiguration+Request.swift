import Foundation
import PocketSphinx
import SpeechClient

extension DecoderConfiguration {
  /// The files and search a request's pocketsphinx model choice names; `nil` parts use Debian's
  /// `pocketsphinx-en-us`.
  init(model: SpeechRecognitionRequest.Model) {
    switch model {
    case .default:
      self.init()
    case let .custom(hmm, lm, dict):
      self.init(
        acousticModel: hmm ?? Self.defaultAcousticModel,
        dictionary: dict ?? Self.defaultDictionary,
        search: .languageModel(lm ?? Self.defaultLanguageModel))
    case let .grammar(grammar, dict, hmm):
      self.init(
        acousticModel: hmm ?? Self.defaultAcousticModel,
        dictionary: dict ?? Self.defaultDictionary, search: .grammar(grammar))
    case let .keyphrase(phrase, dict, hmm):
      self.init(
        acousticModel: hmm ?? Self.defaultAcousticModel,
        dictionary: dict ?? Self.defaultDictionary, search: .keyphrase(phrase))
    case let .phrases(phrases):
      self.init(search: .phrases(phrases))
    }
  }
}
