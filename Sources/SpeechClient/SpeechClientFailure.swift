extension SpeechClient {
  /// The ways recognition can fail.
  public enum Failure: Error, Equatable, Sendable {
    /// No audio server answered (not running, or not reachable at the configured address).
    case audioServerUnreachable(String)
    /// The capture source does not exist.
    case captureSourceMissing(String)
    /// The audio device stopped delivering audio (server died or hung).
    case audioDeviceFailed(String)
    /// The model files are missing.
    case modelMissing(String)
    /// The model files could not be loaded.
    case modelCorrupt(String)
    /// An audio file could not be opened or read.
    case fileUnreadable(path: String, reason: String)
    /// The decoder failed.
    case decoderFailure(String)
    /// A model file the request names is not there (a path given by the user, rather than the
    /// installed default model, which is ``modelMissing(_:)``).
    case modelFileNotFound(ModelFile, path: String)
    /// The JSGF grammar cannot be parsed; `reason` is the parser's, with the line.
    case grammarInvalid(path: String, reason: String)
    /// A word of the key phrase or the grammar is not in the pronunciation dictionary.
    case wordNotInDictionary(word: String, dictionary: String)
    /// The pronunciation dictionary has entries the decoder cannot use (e.g. not a dictionary).
    case dictionaryInvalid(path: String, reason: String)
    /// The named capture source does not exist; `available` lists the server's sources.
    case captureSourceNotFound(name: String, available: [String])
    /// The engine asked for is not installed: its runtime library or its model is missing or
    /// too old. `engine` names it (`Moonshine`), `reason` says what was looked for.
    case engineUnavailable(engine: String, reason: String)

    /// The files a model is made of, as a request names them.
    public enum ModelFile: String, Equatable, Sendable {
      /// The acoustic model directory (`--hmm`).
      case acousticModel = "acoustic model"
      /// The statistical language model (`--lm`).
      case languageModel = "language model"
      /// The pronunciation dictionary (`--dict`).
      case dictionary
      /// The JSGF grammar (`--grammar`).
      case grammar
      /// A neural model's directory (`--model`).
      case modelDirectory = "model directory"
    }

    /// Whether the failure is about the audio device rather than the model or a file.
    public var isAudioDeviceProblem: Bool {
      switch self {
      case .audioServerUnreachable, .captureSourceMissing, .captureSourceNotFound,
        .audioDeviceFailed:
        true
      default: false
      }
    }
  }
}

extension SpeechClient.Failure {
  /// Wraps any error as a failure; errors that are not a ``SpeechClient/Failure`` become
  /// ``decoderFailure(_:)`` with their description.
  public init(_ error: any Error) {
    if let failure = error as? SpeechClient.Failure {
      self = failure
    } else {
      self = .decoderFailure(String(describing: error))
    }
  }
}
