import Foundation
import Moonshine
import Recognition

/// Where Whisper's model and library are, what it decodes, and how the stream is cut into
/// utterances for it.
///
/// The model is a whisper.cpp (ggml) file: Whisper base, multilingual, as
/// `scripts/install-dependencies.sh --whisper` converts it (`ggml-base.bin`).
///
/// ```swift
/// var configuration = WhisperConfiguration()          // the installed model
/// configuration.language = .code("de")
/// configuration.segmentation.endpointing = .sentence
/// let recognizer = try WhisperRecognizer.make(configuration)
/// ```
public struct WhisperConfiguration: Equatable, Sendable {
  /// The model file.
  public var modelFile: URL
  /// whisper.cpp's library; `nil` searches for it (see ``WhisperRuntime``).
  public var library: URL?
  /// The language spoken, or `.automatic` to detect it (per stream, on its first utterance).
  public var language: Language = .code("en")
  /// Whether to write the speech as English, whatever the language spoken (Whisper's translate
  /// task).
  public var translates = false
  /// Beams of the beam search; 1 decodes greedily. 5 by default: on the measured sets it was as
  /// fast as greedy decoding with a fitted encoder window, and more accurate
  /// (`Benchmarks/whisper/README.md`).
  public var beamSize = 5
  /// Threads one decode may use. Several streams decode at once on their own threads, so 1
  /// serves a busy machine best; a lone live stream may take two.
  public var threadsPerRun = 1
  /// Text the decoder continues from (names, spelling, style), before the phrases favoured.
  public var prompt: String?
  /// How the stream is cut into utterances and how they are reported: the voice-activity
  /// detector, endpointing, pauses, partial results, and the phrases to favour (given to Whisper
  /// as part of its prompt). Its model fields are not used.
  public var segmentation = MoonshineConfiguration(modelDirectory: URL(fileURLWithPath: "/"))

  /// The language spoken.
  public enum Language: Equatable, Hashable, Sendable {
    /// A language by its code (`de`) or English name (`german`).
    case code(String)
    /// Detected from the audio.
    case automatic
  }

  /// The environment variable that names the model file.
  public static let modelEnvironmentVariable = "TRANSCRIBE_WHISPER_MODEL"

  /// Creates a configuration for the model file `modelFile`, or the installed one.
  public init(modelFile: URL? = nil) {
    self.modelFile = modelFile ?? Self.defaultModelFile
  }

  /// The installed model: `$TRANSCRIBE_WHISPER_MODEL` when it is set; else the first
  /// `whisper/base/ggml-base.bin` that exists under
  /// `${XDG_DATA_HOME:-~/.local/share}/transcribe`, `/usr/local/share/transcribe` and
  /// `/usr/share/transcribe`, else where this installation puts it (`/usr` for the Debian
  /// package's command, `/usr/local` for a build from a checkout).
  public static var defaultModelFile: URL {
    defaultModelFile(environment: ProcessInfo.processInfo.environment)
  }

  static func defaultModelFile(environment: [String: String]) -> URL {
    if let path = environment[modelEnvironmentVariable], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    let candidates = InstalledData.candidates(
      "whisper/base/ggml-base.bin", environment: environment)
    return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
      ?? InstalledData.ownPlace("whisper/base/ggml-base.bin")
  }

  /// Checks that the library opens and the model file is there, and that the language is one
  /// Whisper knows.
  ///
  /// - Throws: `.runtimeUnavailable` for the library or a missing installed model,
  ///   `.modelFileNotFound` for a model file that was named, `.decoderFailure` for an unknown
  ///   language.
  public func validate() throws(RecognitionFailure) {
    try WhisperRuntime.open(library)
    guard FileManager.default.fileExists(atPath: modelFile.path) else {
      throw .runtimeUnavailable(engine: "Whisper", reason: "no model at \(modelFile.path)")
    }
    if case let .code(code) = language, WhisperRuntime.language(code) == nil {
      throw .decoderFailure("Whisper does not know the language '\(code)'")
    }
  }
}
