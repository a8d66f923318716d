import Foundation

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
    /// The language asked for cannot be decoded as asked: a code no engine knows, or an engine
    /// (or translation) that cannot decode it; `reason` says which.
    case languageUnsupported(language: String, reason: String)

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
      /// A voice-activity detector's model file (`--vad-model`).
      case voiceActivityModel = "voice-activity model"
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

extension SpeechClient.Failure {
  /// What went wrong, with the details a user on this machine needs (paths, the library's own
  /// words), in one line without a final period. Hosts add how to fix it in their own terms (the
  /// CLI its options, the server nothing that names its files).
  public var problem: String {
    switch self {
    case .audioServerUnreachable(let detail):
      "cannot reach a PulseAudio server (\(Self.trimmed(detail)))"
    case .captureSourceMissing(let detail):
      "no capture source (\(Self.trimmed(detail)))"
    case .captureSourceNotFound(let name, let available):
      "no capture source named '\(name)'; "
        + (available.isEmpty
          ? "the server has none" : "available: \(available.joined(separator: ", "))")
    case .audioDeviceFailed(let detail):
      "the audio device stopped delivering audio (\(Self.trimmed(detail)))"
    case .modelMissing(let detail):
      "the speech model is missing (\(Self.trimmed(detail)))"
    case .modelCorrupt(let detail):
      "the speech model could not be loaded (\(Self.trimmed(detail)))"
    case .engineUnavailable(let engine, let reason):
      "\(engine) is not installed: \(Self.trimmed(reason))"
    case .languageUnsupported(let language, let reason):
      "language '\(language)': \(Self.trimmed(reason))"
    case .fileUnreadable(let path, let reason):
      "cannot read '\(path)': \(Self.trimmed(reason))"
    case .modelFileNotFound(let kind, let path):
      "\(kind.rawValue) not found: '\(path)'"
    case .grammarInvalid(let path, let reason):
      "the grammar '\(path)' is invalid: \(Self.trimmed(reason))"
    case .wordNotInDictionary(let word, let dictionary):
      "the word '\(word)' is not in the dictionary '\(dictionary)'"
    case .dictionaryInvalid(let path, let reason):
      "the dictionary '\(path)' is invalid (\(Self.trimmed(reason)))"
    case .decoderFailure(let detail):
      "the speech decoder failed (\(Self.trimmed(detail)))"
    }
  }

  /// What went wrong, for someone on another machine (a server's client): ``problem`` without
  /// the paths and library messages that describe the machine.
  public var remoteProblem: String {
    switch self {
    case .audioServerUnreachable: "the server cannot reach its audio server"
    case .captureSourceMissing, .captureSourceNotFound: "the server has no capture source"
    case .audioDeviceFailed: "the server's audio device stopped delivering audio"
    case .modelMissing, .modelFileNotFound: "the speech model is not installed"
    case .modelCorrupt, .grammarInvalid, .dictionaryInvalid: "the speech model cannot be loaded"
    case .engineUnavailable(let engine, _): "\(engine) is not installed on this server"
    case .languageUnsupported: problem
    case .fileUnreadable(_, let reason): "the audio cannot be read: \(Self.trimmed(reason))"
    case .wordNotInDictionary(let word, _): "the word '\(word)' is not in the dictionary"
    case .decoderFailure(let detail): "the speech decoder failed (\(Self.trimmed(detail)))"
    }
  }

  /// A library's text without surrounding space or a final period ("Format not recognised.").
  static func trimmed(_ text: String) -> String {
    var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    while text.hasSuffix(".") { text.removeLast() }
    return text
  }
}
