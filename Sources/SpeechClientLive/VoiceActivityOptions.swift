import Foundation
import Moonshine
import Recognition

/// Which voice-activity detector cuts speech for every engine and source, as a host chooses it:
/// Silero VAD (a neural detector, the default when it is installed) or the energy detector.
///
/// Every place speech is cut uses it: files cut at pauses before parallel decoding, and the end
/// of each utterance for capture sources, standard input and pushed audio (both engines).
///
/// ```swift
/// var configuration = LiveSpeechConfiguration()
/// configuration.voiceActivity = VoiceActivityOptions(detector: .silero, threshold: 0.6)
/// let detection = try configuration.voiceActivity.resolved()  // fails when Silero is missing
/// print(detection.name)  // "Silero VAD"
/// ```
public struct VoiceActivityOptions: Equatable, Sendable {
  /// The detectors to choose from.
  public enum Detector: String, CaseIterable, Equatable, Sendable {
    /// Silero VAD: a small neural network (ONNX Runtime); hears speech under steady noise.
    case silero
    /// Frame energy against the background level: no model needed, but steady noise hides
    /// quiet speech from it.
    case energy
  }

  /// The detector; `nil` picks Silero VAD when ONNX Runtime and its model are installed, else
  /// the energy detector.
  public var detector: Detector?
  /// The speech probability from which audio is speech, between 0 and 1 (exclusive).
  public var threshold: Double
  /// Silero VAD's model file; `nil` for `$TRANSCRIBE_VAD_MODEL` or the installed one.
  public var sileroModel: URL?
  /// The ONNX Runtime library Silero VAD runs in; `nil` searches for it as Moonshine does.
  public var runtimeLibrary: URL?

  /// The environment variable that chooses the detector (`silero` or `energy`).
  public static let environmentVariable = "TRANSCRIBE_VAD"
  /// The environment variable that names Silero VAD's model file (and so asks for it).
  public static let modelEnvironmentVariable = SileroVoiceActivityModel.modelEnvironmentVariable

  /// Creates options; by default Silero VAD when installed, threshold 0.5.
  public init(
    detector: Detector? = nil, threshold: Double = VoiceActivityDetection.defaultThreshold,
    sileroModel: URL? = nil, runtimeLibrary: URL? = nil
  ) {
    self.detector = detector
    self.threshold = threshold
    self.sileroModel = sileroModel
    self.runtimeLibrary = runtimeLibrary
  }

  /// Whether Silero VAD can run here: ONNX Runtime loads and the model file is there.
  public var isSileroInstalled: Bool {
    SileroVoiceActivityModel.isInstalled(file: sileroModel, runtimeLibrary: runtimeLibrary)
  }

  /// The detector these options choose, with the model loaded (once per process).
  ///
  /// - Throws: when Silero VAD was asked for and cannot run: `RecognitionFailure.modelMissing`
  ///   (not installed), `.modelFileNotFound(.voiceActivityModel, path:)` (a named file is
  ///   absent), `.modelCorrupt` (not Silero VAD's model), `.runtimeUnavailable` (no ONNX
  ///   Runtime). Without a choice, a Silero VAD that cannot run falls back to the energy
  ///   detector.
  public func resolved() throws(RecognitionFailure) -> VoiceActivityDetection {
    switch detector {
    case .energy:
      var detection = VoiceActivityDetection.energy
      detection.threshold = threshold
      return detection
    case .silero:
      return .silero(try sileroModelLoaded(), threshold: threshold)
    case nil:
      guard isSileroInstalled, let model = try? sileroModelLoaded() else {
        var detection = VoiceActivityDetection.energy
        detection.threshold = threshold
        return detection
      }
      return .silero(model, threshold: threshold)
    }
  }

  private func sileroModelLoaded() throws(RecognitionFailure) -> SileroVoiceActivityModel {
    try SileroVoiceActivityModel.shared(file: sileroModel, runtimeLibrary: runtimeLibrary)
  }
}
