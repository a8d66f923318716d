import Foundation
import Recognition

/// Where Moonshine's model is and how a ``MoonshineRecognizer`` cuts and reports utterances.
///
/// The model directory holds `encoder_model.onnx`, `decoder_model_merged.onnx` and
/// `tokenizer.bin`, as `scripts/install-dependencies.sh` converts them; the ONNX Runtime-format
/// originals (`encoder_model.ort`, `decoder_model_merged.ort`) work too, about five times slower.
/// When both exist the `.onnx` file is used.
///
/// ```swift
/// var configuration = MoonshineConfiguration()  // the installed model
/// configuration.endOfUtteranceSilence = 0.4
/// try configuration.validate()
/// let recognizer = try MoonshineRecognizer(configuration: configuration)
/// ```
public struct MoonshineConfiguration: Equatable, Sendable {
  /// The directory with the model's files.
  public var modelDirectory: URL
  /// The ONNX Runtime library to load; `nil` searches for it (see ``MoonshineRuntime``).
  public var runtimeLibrary: URL?
  /// How many threads one model run may use (ONNX Runtime's intra-op threads). Several streams
  /// decode at once on their own threads, so 1 usually serves a busy machine best.
  public var threadsPerRun: Int = 1
  /// How long a pause ends an utterance, in seconds: with ``endpointing`` `.fixed`, every
  /// utterance; with `.sentence`, the shortest pause, which ends a finished sentence.
  public var endOfUtteranceSilence: TimeInterval = 0.5
  /// How the recognizer decides that an utterance is over: after a fixed pause (the default
  /// here; hosts choose `.sentence`), or by judging whether the sentence is finished.
  public var endpointing: Endpointing = .fixed
  /// With `.sentence` endpointing, the longest pause an unfinished sentence is held open
  /// through, in seconds.
  public var maximumEndOfUtteranceSilence: TimeInterval = Endpointing.defaultMaximumSilence
  /// The longest utterance, in seconds; a longer one is ended there and the next one starts.
  public var maximumUtteranceDuration: TimeInterval = 30
  /// Whether a recognizer reports partial hypotheses while an utterance goes on.
  public var reportsPartialResults = true
  /// How much a recognizer spends on those partial hypotheses (`off` reports none either).
  public var partialResults: PartialResults = .balanced
  /// The voice-activity detector that finds utterances, and its threshold: by default the
  /// energy detector (hosts choose Silero VAD with ``VoiceActivityDetection/silero(_:threshold:)``
  /// when it is installed).
  public var voiceActivity: VoiceActivityDetection = .energy
  /// Phrases the decoder favours, such as names of lamps, rooms and people (see
  /// ``MoonshineHotwords``); empty for none, which decodes exactly as plain greedy decoding.
  public var hotwords: [String] = []
  /// What the decoder adds to the logit of a token that spells on a phrase of ``hotwords``.
  public var hotwordBoost: Float = MoonshineHotwords.defaultBoost

  /// The environment variable that names the model directory.
  public static let modelEnvironmentVariable = "TRANSCRIBE_MOONSHINE_MODEL"

  /// Creates a configuration for the model in `modelDirectory`, or the installed one.
  public init(modelDirectory: URL? = nil) {
    self.modelDirectory = modelDirectory ?? Self.defaultModelDirectory
  }

  /// The installed model: `$TRANSCRIBE_MOONSHINE_MODEL` when it is set; else the first of these
  /// that exists, else where this installation puts it (`/usr` for the Debian package's command,
  /// `/usr/local` for a build from a checkout), which a message then names:
  /// `${XDG_DATA_HOME:-~/.local/share}/transcribe/moonshine/base-en`,
  /// `/usr/local/share/transcribe/moonshine/base-en`, `/usr/share/transcribe/moonshine/base-en`.
  public static var defaultModelDirectory: URL {
    defaultModelDirectory(environment: ProcessInfo.processInfo.environment)
  }

  /// ``defaultModelDirectory`` with the environment given (for tests).
  static func defaultModelDirectory(environment: [String: String]) -> URL {
    // A directory named in the environment is the one meant: when it is not there, that is
    // reported, rather than another model used without a word.
    if let path = environment[modelEnvironmentVariable], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    let candidates = InstalledData.candidates("moonshine/base-en", environment: environment)
    var isDirectory: ObjCBool = false
    return candidates.first {
      FileManager.default.fileExists(atPath: $0.path, isDirectory: &isDirectory)
        && isDirectory.boolValue
    } ?? InstalledData.ownPlace("moonshine/base-en")
  }

  /// Checks the model's files without loading them: the directory exists, each file is there,
  /// the model files are complete ONNX (or ORT-format) files, the tokenizer reads.
  ///
  /// - Throws: `RecognitionFailure.modelMissing` when the default directory is absent (the
  ///   message names `./scripts/install-dependencies.sh`); `.modelFileNotFound(.modelDirectory,
  ///   path:)` when a directory the caller named is absent; `.modelCorrupt` naming the file when a
  ///   file is missing, truncated or not a model, or the tokenizer is damaged.
  public func validate() throws(RecognitionFailure) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: modelDirectory.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      // A missing default is reported as not installed, a directory the caller named as not found.
      if modelDirectory.standardizedFileURL == Self.defaultModelDirectory.standardizedFileURL {
        throw .modelMissing(
          "Moonshine's model is not installed (looked for \(modelDirectory.path)); "
            + "\(Installation.current.reinstallEnglishEngine), or set "
            + "$\(Self.modelEnvironmentVariable)")
      }
      throw .modelFileNotFound(.modelDirectory, path: modelDirectory.path)
    }
    let files = try MoonshineModelFiles(directory: modelDirectory)
    try files.checkModelFiles()
    try MoonshineTokenizer.check(contentsOf: files.tokenizer)
  }
}

/// The files of a model directory, with the model format chosen (`.onnx` over `.ort`).
struct MoonshineModelFiles: Equatable, Sendable {
  var encoder: URL
  var decoder: URL
  var tokenizer: URL

  static let encoderName = "encoder_model"
  static let decoderName = "decoder_model_merged"
  static let tokenizerName = "tokenizer.bin"

  /// Finds the files; throws `.modelCorrupt` naming the first one missing.
  init(directory: URL) throws(RecognitionFailure) {
    func model(_ name: String) throws(RecognitionFailure) -> URL {
      for suffix in ["onnx", "ort"] {
        let url = directory.appendingPathComponent("\(name).\(suffix)")
        if FileManager.default.fileExists(atPath: url.path) { return url }
      }
      throw .modelCorrupt(
        "Moonshine's model in \(directory.path) is incomplete: \(name).onnx (or \(name).ort) is "
          + "missing")
    }
    encoder = try model(Self.encoderName)
    decoder = try model(Self.decoderName)
    tokenizer = directory.appendingPathComponent(Self.tokenizerName)
    guard FileManager.default.fileExists(atPath: tokenizer.path) else {
      throw .modelCorrupt(
        "Moonshine's model in \(directory.path) is incomplete: \(Self.tokenizerName) is missing")
    }
  }

  /// Checks that both model files are whole model files (see ``ModelFileCheck``).
  func checkModelFiles() throws(RecognitionFailure) {
    for file in [encoder, decoder] {
      if let problem = ModelFileCheck.problem(with: file) {
        throw .modelCorrupt("\(file.path) is not a usable model: \(problem)")
      }
    }
  }
}

/// A quick structural check of a model file, reading only a few bytes of it: an `.onnx` file is
/// a protocol buffer whose top-level fields must add up to exactly the file's size (a truncated
/// file does not) and include the graph; an `.ort` file must carry the `ORTM` identifier.
enum ModelFileCheck {
  /// What is wrong with the file, or `nil` when it looks whole.
  static func problem(with file: URL) -> String? {
    guard let handle = try? FileHandle(forReadingFrom: file) else { return "it cannot be read" }
    defer { try? handle.close() }
    guard let size = try? handle.seekToEnd(), size > 0 else { return "it is empty" }
    if file.pathExtension == "ort" {
      try? handle.seek(toOffset: 0)
      let header = (try? handle.read(upToCount: 8)) ?? Data()
      guard header.count == 8, header.suffix(4) == Data("ORTM".utf8) else {
        return "it is not an ONNX Runtime-format model"
      }
      return nil
    }
    return protobufProblem(handle: handle, size: size)
  }

  /// Walks the top-level fields of an ONNX `ModelProto`.
  private static func protobufProblem(handle: FileHandle, size: UInt64) -> String? {
    var offset: UInt64 = 0
    var hasGraph = false
    var hasIRVersion = false
    func readVarint() -> UInt64? {
      try? handle.seek(toOffset: offset)
      guard let bytes = try? handle.read(upToCount: 10) else { return nil }
      var value: UInt64 = 0
      for (index, byte) in bytes.enumerated() {
        value |= UInt64(byte & 0x7F) << (7 * UInt64(index))
        if byte & 0x80 == 0 {
          offset += UInt64(index + 1)
          return value
        }
      }
      return nil
    }
    while offset < size {
      guard let key = readVarint() else { return "it ends inside a field (truncated?)" }
      let field = key >> 3
      switch key & 7 {
      case 0:
        guard readVarint() != nil else { return "it ends inside a field (truncated?)" }
      case 1: offset += 8
      case 2:
        guard let length = readVarint() else { return "it ends inside a field (truncated?)" }
        offset += length
      case 5: offset += 4
      default: return "it is not an ONNX model"
      }
      guard field > 0 else { return "it is not an ONNX model" }
      if field == 1 { hasIRVersion = true }
      if field == 7 { hasGraph = true }
    }
    guard offset == size else { return "it is truncated (\(size) of \(offset) bytes)" }
    guard hasIRVersion, hasGraph else { return "it is not an ONNX model" }
    return nil
  }
}

/// Where `scripts/install-dependencies.sh` (under `$HOME` or `/usr/local`) and the Debian package
/// (under `/usr`, `debian/`) put the models transcribe finds by itself.
package enum InstalledData {
  /// `path` under `${XDG_DATA_HOME:-~/.local/share}/transcribe`, `/usr/local/share/transcribe`
  /// and `/usr/share/transcribe`, in that order.
  package static func candidates(_ path: String, environment: [String: String]) -> [URL] {
    let home =
      environment["HOME"].map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.homeDirectoryForCurrentUser
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
      ?? home.appendingPathComponent(".local/share")
    return [
      dataHome.appendingPathComponent("transcribe/\(path)"),
      URL(fileURLWithPath: "/usr/local/share/transcribe/\(path)"),
      URL(fileURLWithPath: "/usr/share/transcribe/\(path)"),
    ]
  }

  /// Where this installation puts `path`: the Debian package under `/usr/share/transcribe`,
  /// `scripts/install-dependencies.sh` (as root) under `/usr/local/share/transcribe`.
  package static func ownPlace(_ path: String, installation: Installation = .current) -> URL {
    let root =
      installation == .debianPackage ? "/usr/share/transcribe" : "/usr/local/share/transcribe"
    return URL(fileURLWithPath: "\(root)/\(path)")
  }
}
