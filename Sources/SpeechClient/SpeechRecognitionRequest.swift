import Foundation

/// What to recognize and how.
///
/// ```swift
/// var request = SpeechRecognitionRequest()                    // default microphone
/// request.source = .file(URL(fileURLWithPath: "talk.wav"))
/// request.model = .grammar(URL(fileURLWithPath: "cards.gram"))
/// ```
public struct SpeechRecognitionRequest: Equatable, Sendable {
  /// Where the audio comes from.
  public var source: AudioSource
  /// Which acoustic and language model decodes it.
  public var model: Model
  /// Whether to deliver partial results while an utterance is still being spoken.
  public var shouldReportPartialResults: Bool

  /// Creates a request; by default the default microphone, the default model, partial results.
  public init(
    source: AudioSource = .microphone,
    model: Model = .default,
    shouldReportPartialResults: Bool = true
  ) {
    self.source = source
    self.model = model
    self.shouldReportPartialResults = shouldReportPartialResults
  }

  /// An audio source.
  public enum AudioSource: Equatable, Sendable {
    /// The default capture source of the audio server.
    case microphone
    /// A capture source by its server name (see `transcribe --list-devices`).
    case device(String)
    /// An audio file in any format and rate the live client can read (WAV, FLAC, OGG, ...).
    case file(URL)
    /// Headerless 16 kHz mono signed 16-bit little-endian samples.
    case rawFile(URL)
    /// Standard input, e.g. a pipe: an audio file's bytes, or with `raw` headerless 16 kHz mono
    /// signed 16-bit little-endian samples.
    case standardInput(raw: Bool)
    /// Audio a host pushes in as it arrives (a server's connection): signed 16-bit mono samples
    /// at the ``PushedAudio/sampleRate`` it declares, which the client converts as needed.
    case pushed(PushedAudio)
  }

  /// A model choice.
  public enum Model: Equatable, Sendable {
    /// The installed default English model.
    case `default`
    /// Explicit model files; `nil` parts use the default.
    case custom(acousticModel: URL?, languageModel: URL?, dictionary: URL?)
    /// A JSGF grammar that constrains what can be recognized; `nil` parts use the default.
    case grammar(URL, dictionary: URL? = nil, acousticModel: URL? = nil)
    /// Spot a single key phrase; `nil` parts use the default.
    case keyphrase(String, dictionary: URL? = nil, acousticModel: URL? = nil)
    /// Recognize only these phrases (any sequence of them), with the default model: what
    /// vosk's `phrase_list` asks for. Phrases with words the dictionary lacks are left out.
    case phrases([String])
  }
}

extension SpeechRecognitionRequest.AudioSource {
  /// Whether the audio is captured as it happens (a microphone), so a recording limit counts
  /// clock time, rather than read from an input (a file, standard input or pushed audio), where
  /// it counts audio time.
  public var isLive: Bool {
    switch self {
    case .microphone, .device: true
    case .file, .rawFile, .standardInput, .pushed: false
    }
  }
}
