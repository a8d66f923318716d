import Foundation
import Recognition

/// The model files and search a ``Decoder`` loads.
///
/// Paths default to Debian's `pocketsphinx-en-us` package. Resolving checks that every file is
/// there, so a missing model is reported as `RecognitionFailure.modelMissing` before
/// pocketsphinx spends a second loading the rest.
///
/// ```swift
/// var configuration = DecoderConfiguration(search: .grammar(URL(fileURLWithPath: "cards.gram")))
/// configuration.reportsPartialResults = false
/// let decoder = try Decoder(configuration: configuration)
/// ```
public struct DecoderConfiguration: Equatable, Sendable {
  /// What constrains the words the decoder can recognize.
  public enum Search: Equatable, Sendable {
    /// A statistical language model (`-lm`).
    case languageModel(URL)
    /// A JSGF grammar (`-jsgf`).
    case grammar(URL)
    /// A key phrase to spot (`-keyphrase`).
    case keyphrase(String)
    /// Only these phrases, in any sequence: a grammar the decoder builds from them on top of
    /// the default language model (see `Decoder.restrict(toPhrases:)`).
    case phrases([String])
  }

  /// The acoustic model directory (`-hmm`).
  public var acousticModel: URL
  /// The pronunciation dictionary (`-dict`).
  public var dictionary: URL
  /// The search.
  public var search: Search
  /// Whether pocketsphinx may write its log to stderr.
  public var isVerbose = false
  /// How often, in seconds of audio, the current partial hypothesis is checked for changes.
  public var partialResultInterval: TimeInterval = 0.1
  /// The longest stretch of speech, in seconds of audio, without a partial result: the partial
  /// hypothesis is reported again after this long even when it did not change.
  public var maximumPartialResultGap: TimeInterval = 0.2
  /// Whether partial results are reported at all.
  public var reportsPartialResults = true
  /// Utterances longer than this, in seconds of audio, are ended so memory stays bounded.
  public var maximumUtteranceDuration: TimeInterval = 30
  /// How long a silence ends an utterance, in seconds (pocketsphinx's `-vad_postspeech`).
  public var endOfUtteranceSilence: TimeInterval = defaultEndOfUtteranceSilence

  /// pocketsphinx's own end-of-utterance silence: half a second.
  public static let defaultEndOfUtteranceSilence: TimeInterval = 0.5

  /// The voice-activity detector that finds utterances, or `nil` for pocketsphinx's own
  /// (`ps_get_in_speech`, energy-based). With a detector the decoder hears only speech: audio is
  /// fed to pocketsphinx from 0.2 s before the detector hears speech until
  /// ``endOfUtteranceSilence`` after it stops, and pocketsphinx's own silence removal is off.
  public var voiceActivity: VoiceActivityDetection?

  /// How many n-best hypotheses are searched for each word's alternatives (0 turns it off).
  public var alternativeCount = 5

  /// The sample rate the decoder expects, in Hz.
  public static let sampleRate = 16_000

  /// Where Debian's `pocketsphinx-en-us` puts the default English model.
  public static let defaultModelDirectory = URL(
    fileURLWithPath: "/usr/share/pocketsphinx/model/en-us")
  /// The default acoustic model directory.
  public static let defaultAcousticModel = defaultModelDirectory.appendingPathComponent("en-us")
  /// The default language model.
  public static let defaultLanguageModel = defaultModelDirectory.appendingPathComponent(
    "en-us.lm.bin")
  /// The default pronunciation dictionary.
  public static let defaultDictionary = defaultModelDirectory.appendingPathComponent(
    "cmudict-en-us.dict")

  /// A configuration of the given files and search, without touching the file system; by
  /// default Debian's `pocketsphinx-en-us` model with its statistical language model.
  public init(
    acousticModel: URL = Self.defaultAcousticModel,
    dictionary: URL = Self.defaultDictionary,
    search: Search = .languageModel(Self.defaultLanguageModel)
  ) {
    self.acousticModel = acousticModel
    self.dictionary = dictionary
    self.search = search
  }

  /// Checks that every model file exists and is readable.
  ///
  /// - Throws: `RecognitionFailure.modelMissing` when a file of the installed default model is
  ///   missing, `RecognitionFailure.modelFileNotFound` when a file the request named is,
  ///   `RecognitionFailure.modelCorrupt` when a named file is of the wrong kind or unreadable,
  ///   `dictionaryInvalid`/`grammarInvalid` when the dictionary or grammar is not a regular file,
  ///   `RecognitionFailure.decoderFailure` for an empty key phrase.
  public func validate() throws(RecognitionFailure) {
    try Self.requireReadable(
      acousticModel, .acousticModel, isDefault: acousticModel == Self.defaultAcousticModel,
      isDirectory: true)
    try Self.requireReadable(
      acousticModel.appendingPathComponent("mdef"), .acousticModel,
      isDefault: acousticModel == Self.defaultAcousticModel)
    try Self.requireReadable(
      dictionary, .dictionary, isDefault: dictionary == Self.defaultDictionary)
    switch search {
    case let .languageModel(url):
      try Self.requireReadable(
        url, .languageModel, isDefault: url == Self.defaultLanguageModel)
    case let .grammar(url):
      try Self.requireReadable(url, .grammar, isDefault: false)
    case let .keyphrase(phrase):
      if phrase.split(whereSeparator: \.isWhitespace).isEmpty {
        throw .decoderFailure("the key phrase is empty")
      }
    case .phrases:
      try Self.requireReadable(
        Self.defaultLanguageModel, .languageModel, isDefault: true)
    }
  }

  /// The pocketsphinx command-line options for this configuration (pairs, no `argv[0]`).
  public var arguments: [String] {
    var arguments = ["-hmm", acousticModel.path, "-dict", dictionary.path]
    switch search {
    case let .languageModel(url): arguments += ["-lm", url.path]
    case let .grammar(url): arguments += ["-jsgf", url.path]
    case let .keyphrase(phrase): arguments += ["-keyphrase", phrase.lowercased()]
    case .phrases: arguments += ["-lm", Self.defaultLanguageModel.path]
    }
    if voiceActivity != nil {
      // The detector decides what is speech: pocketsphinx decodes every frame it is given.
      arguments += ["-remove_silence", "no"]
    } else if endOfUtteranceSilence != Self.defaultEndOfUtteranceSilence {
      // In frames of 10 ms; at least one.
      let frames = max(1, Int((endOfUtteranceSilence * 100).rounded()))
      arguments += ["-vad_postspeech", String(frames)]
    }
    return arguments
  }

  private static func requireReadable(
    _ url: URL, _ kind: RecognitionFailure.ModelFile, isDefault: Bool, isDirectory: Bool = false
  ) throws(RecognitionFailure) {
    let what = kind.rawValue
    var directory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) else {
      if isDefault { throw .modelMissing("\(what) not found: \(url.path)") }
      throw .modelFileNotFound(kind, path: url.path)
    }
    let problem: String
    if directory.boolValue != isDirectory {
      problem = "\(what) is \(isDirectory ? "not a directory" : "a directory"): \(url.path)"
    } else if !FileManager.default.isReadableFile(atPath: url.path) {
      problem = "\(what) is not readable: \(url.path)"
    } else if !isDirectory, !isRegularFile(url) {
      // A device or a pipe (`/dev/zero`) would be read for ever.
      let reason = "not a regular file: a device or a pipe is never read to its end"
      switch kind {
      case .dictionary: throw .dictionaryInvalid(path: url.path, reason: reason)
      case .grammar: throw .grammarInvalid(path: url.path, reason: reason)
      default: problem = "\(what) is not a regular file: \(url.path)"
      }
    } else {
      return
    }
    throw isDefault ? .modelMissing(problem) : .modelCorrupt(problem)
  }
}

/// Whether `url`, its links followed, is a regular file.
private func isRegularFile(_ url: URL) -> Bool {
  let attributes = try? FileManager.default.attributesOfItem(
    atPath: url.resolvingSymlinksInPath().path)
  return attributes?[.type] as? FileAttributeType == .typeRegular
}

extension DecoderConfiguration.Search: CustomStringConvertible {
  /// The search as messages name it, e.g. `grammar /home/me/cards.gram`.
  public var description: String {
    switch self {
    case let .languageModel(url): "language model \(url.path)"
    case let .grammar(url): "grammar \(url.path)"
    case let .keyphrase(phrase): "key phrase \"\(phrase)\""
    case let .phrases(phrases): "phrase list (\(phrases.count) phrases)"
    }
  }
}
