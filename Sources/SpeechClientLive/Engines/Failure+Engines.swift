import AudioInput
import Recognition
import SpeechClient

extension SpeechClient.Failure {
  /// An engine's failure as the client reports it.
  init(_ failure: RecognitionFailure) {
    switch failure {
    case let .modelMissing(detail): self = .modelMissing(detail)
    case let .modelCorrupt(detail): self = .modelCorrupt(detail)
    case let .modelFileNotFound(kind, path): self = .modelFileNotFound(ModelFile(kind), path: path)
    case let .runtimeUnavailable(engine, reason):
      self = .engineUnavailable(engine: engine, reason: reason)
    case let .decoderFailure(detail): self = .decoderFailure(detail)
    case let .grammarInvalid(path, reason): self = .grammarInvalid(path: path, reason: reason)
    case let .wordNotInDictionary(word, dictionary):
      self = .wordNotInDictionary(word: word, dictionary: dictionary)
    case let .dictionaryInvalid(path, reason): self = .dictionaryInvalid(path: path, reason: reason)
    }
  }

  /// An audio source's failure as the client reports it.
  init(_ failure: AudioInputFailure) {
    switch failure {
    case let .audioServerUnreachable(detail): self = .audioServerUnreachable(detail)
    case let .captureSourceMissing(detail): self = .captureSourceMissing(detail)
    case let .audioDeviceFailed(detail): self = .audioDeviceFailed(detail)
    case let .fileUnreadable(path, reason): self = .fileUnreadable(path: path, reason: reason)
    case let .captureSourceNotFound(name, available):
      self = .captureSourceNotFound(name: name, available: available)
    case let .conversionFailed(detail): self = .decoderFailure(detail)
    }
  }

  /// Any error of the live pipeline as the client reports it.
  init(live error: any Error) {
    switch error {
    case let failure as RecognitionFailure: self.init(failure)
    case let failure as AudioInputFailure: self.init(failure)
    default: self.init(error)
    }
  }
}

extension SpeechClient.Failure.ModelFile {
  init(_ file: RecognitionFailure.ModelFile) {
    switch file {
    case .acousticModel: self = .acousticModel
    case .languageModel: self = .languageModel
    case .dictionary: self = .dictionary
    case .grammar: self = .grammar
    case .modelDirectory: self = .modelDirectory
    case .voiceActivityModel: self = .voiceActivityModel
    }
  }
}
