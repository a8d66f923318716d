/// Why a recognizer could not load or decode: the same cases for every engine, so the layer
/// above maps them to its own failures once.
public enum RecognitionFailure: Error, Equatable, Sendable {
  /// The engine's installed default model is missing (e.g. a package is not installed).
  case modelMissing(String)
  /// A model could not be loaded: unreadable, of the wrong kind, damaged.
  case modelCorrupt(String)
  /// A model file the caller named (rather than the installed default) is not there.
  case modelFileNotFound(ModelFile, path: String)
  /// The engine's runtime library is missing or too old (e.g. ONNX Runtime for Moonshine);
  /// `engine` names the engine, `reason` what was looked for.
  case runtimeUnavailable(engine: String, reason: String)
  /// The decoder failed while loading or decoding.
  case decoderFailure(String)
  /// The JSGF grammar cannot be parsed; `reason` is the parser's, with the line.
  case grammarInvalid(path: String, reason: String)
  /// A word of the key phrase or the grammar is not in the pronunciation dictionary.
  case wordNotInDictionary(word: String, dictionary: String)
  /// The pronunciation dictionary has entries the decoder cannot use.
  case dictionaryInvalid(path: String, reason: String)

  /// The files a model is made of, as a caller names them.
  public enum ModelFile: String, Equatable, Sendable {
    /// pocketsphinx's acoustic model directory (`--hmm`).
    case acousticModel = "acoustic model"
    /// pocketsphinx's statistical language model (`--lm`).
    case languageModel = "language model"
    /// pocketsphinx's pronunciation dictionary (`--dict`).
    case dictionary
    /// A JSGF grammar (`--grammar`).
    case grammar
    /// A neural model's directory (`--model`).
    case modelDirectory = "model directory"
    /// A voice-activity detector's model file (`--vad-model`).
    case voiceActivityModel = "voice-activity model"
  }
}
