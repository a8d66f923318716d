import ArgumentParser
import Foundation
import Recognition
import SpeechClientLive

extension VoiceActivityOptions.Detector: ExpressibleByArgument {}

/// `--vad`, `--vad-threshold` and `--vad-model`, for `transcribe` and `transcribe serve` alike (in
/// a group for the same reason as ``EngineOption``).
struct VoiceActivityOption: ParsableArguments {
  @Option(
    name: .customLong("vad"),
    help: ArgumentHelp(
      """
      The voice-activity detector that finds speech: silero (a neural detector that hears \
      speech under noise) or energy (no model needed; steady noise hides quiet speech from it). \
      Default: $TRANSCRIBE_VAD, else silero when it is installed.
      """,
      valueName: "detector"))
  var detector: VoiceActivityOptions.Detector?

  @Option(
    name: .customLong("vad-threshold"), parsing: .unconditional,
    help: ArgumentHelp(
      """
      The speech probability from which Silero VAD takes audio for speech, between 0 and 1 \
      (default 0.5): higher ignores more noise, lower keeps quieter speech.
      """,
      valueName: "p"))
  var threshold: Double?

  @Option(
    name: .customLong("vad-model"),
    help: ArgumentHelp(
      """
      Silero VAD's model file (default: $TRANSCRIBE_VAD_MODEL, else the one \
      ./scripts/install-dependencies.sh installed).
      """,
      valueName: "file"))
  var model: String?

  /// The environment variable that chooses the detector.
  static let environmentVariable = VoiceActivityOptions.environmentVariable

  /// Checks the options and `TRANSCRIBE_VAD`; a usage error (64) names the fix.
  func check(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
    if let threshold, !(threshold > 0 && threshold < 1) {
      throw ValidationError(
        "--vad-threshold must be a probability between 0 and 1 (exclusive), e.g. 0.5; got "
          + "\(threshold.formatted()).")
    }
    if let model, model.allSatisfy(\.isWhitespace) {
      throw ValidationError("--vad-model needs a file, e.g. --vad-model ~/models/silero_vad.onnx.")
    }
    let detector = try self.detector ?? Self.detector(fromEnvironment: environment)
    if detector == .energy, model != nil {
      throw ValidationError(
        "--vad-model names Silero VAD's model; it cannot be used with the energy detector. "
          + "Leave out --vad-model, or use --vad silero.")
    }
  }

  /// `TRANSCRIBE_VAD`, when it is set.
  static func detector(
    fromEnvironment environment: [String: String]
  ) throws -> VoiceActivityOptions.Detector? {
    guard let value = environment[environmentVariable], !value.isEmpty else { return nil }
    guard let detector = VoiceActivityOptions.Detector(rawValue: value.lowercased()) else {
      throw ValidationError("\(environmentVariable) must be silero or energy, not '\(value)'.")
    }
    return detector
  }

  /// The options as given: `--vad`, else `TRANSCRIBE_VAD`, else Silero VAD when a model file is
  /// named (`--vad-model`, `TRANSCRIBE_VAD_MODEL`: the file meant, reported when it is not
  /// there), else the default choice.
  func options(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> VoiceActivityOptions {
    let namesModel =
      model != nil || !(environment[VoiceActivityOptions.modelEnvironmentVariable] ?? "").isEmpty
    return VoiceActivityOptions(
      detector: detector ?? (try? Self.detector(fromEnvironment: environment))
        ?? (namesModel ? .silero : nil),
      threshold: threshold ?? VoiceActivityDetection.defaultThreshold,
      sileroModel: model.map { URL(fileURLWithPath: $0) })
  }

  /// The detector a run uses, resolved once before anything starts: Silero VAD loaded (when
  /// asked for, or by default when installed), or the energy detector.
  ///
  /// - Throws: `ExitStatus.modelUnavailable` (5) after printing one line that names the fix,
  ///   when Silero VAD was asked for and cannot run.
  func resolved(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> (options: VoiceActivityOptions, detection: VoiceActivityDetection) {
    var options = options(environment: environment)
    let detection: VoiceActivityDetection
    do {
      detection = try options.resolved()
    } catch {
      Terminal.writeError("transcribe: error: \(Self.message(for: error))\n")
      throw ExitStatus.modelUnavailable.exitCode
    }
    // Sessions use what was resolved here, not another look at what is installed.
    options.detector = detection.isEnergy ? .energy : .silero
    return (options, detection)
  }

  /// One line for a Silero VAD that cannot run, naming the fix.
  static func message(for failure: RecognitionFailure) -> String {
    let instead = " Or use --vad energy."
    switch failure {
    case .modelMissing(let detail):
      return "\(detail).\(instead)"
    case .modelFileNotFound(_, let path):
      return "Silero VAD's model \(path) does not exist. Check the path given with --vad-model "
        + "(or $TRANSCRIBE_VAD_MODEL).\(instead)"
    case .modelCorrupt(let detail):
      return "\(detail). Pass Silero VAD's silero_vad.onnx with --vad-model, or "
        + "\(Installation.current.reinstallEnglishEngine).\(instead)"
    case .runtimeUnavailable(_, let reason):
      return "Silero VAD needs ONNX Runtime: \(reason).\(instead)"
    case .decoderFailure(let detail), .grammarInvalid(_, let detail),
      .dictionaryInvalid(_, let detail):
      return "Silero VAD could not start: \(detail).\(instead)"
    case .wordNotInDictionary(let word, _):
      return "Silero VAD could not start (\(word)).\(instead)"
    }
  }
}
