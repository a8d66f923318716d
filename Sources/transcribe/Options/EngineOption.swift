import ArgumentParser
import Foundation
import SpeechClient
import SpeechClientLive

extension SpeechRecognitionRequest.EngineName: ExpressibleByArgument {
  public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// `--engine`, for `transcribe` and `transcribe serve` alike (in a group for the same reason as
/// ``PreviewOption``: an option both commands declare would reach only the parent).
struct EngineOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      """
      The recognition engine: moonshine (accurate, punctuated, English), pocketsphinx (light; \
      grammars and key phrases) or whisper (other languages; see --language). Default: \
      $TRANSCRIBE_ENGINE, else Moonshine when it is installed (Whisper for other languages).
      """,
      valueName: "engine"))
  var engine: SpeechRecognitionRequest.EngineName?
}

extension EngineOption {
  /// `TRANSCRIBE_ENGINE`, when it is set.
  static func engine(
    fromEnvironment environment: [String: String]
  ) throws -> SpeechRecognitionRequest.EngineName? {
    guard let value = environment["TRANSCRIBE_ENGINE"], !value.isEmpty else { return nil }
    guard let engine = SpeechRecognitionRequest.EngineName(rawValue: value.lowercased()) else {
      throw ValidationError(
        "TRANSCRIBE_ENGINE must be moonshine, pocketsphinx or whisper, not '\(value)'.")
    }
    return engine
  }

  /// `--engine`, else `TRANSCRIBE_ENGINE`, else Moonshine when it is installed, else
  /// pocketsphinx.
  var engineOrDefault: SpeechRecognitionRequest.EngineName {
    if let engine { return engine }
    if let engine = try? Self.engine(fromEnvironment: ProcessInfo.processInfo.environment) {
      return engine
    }
    return LiveSpeechConfiguration.isInstalled(.moonshine) ? .moonshine : .pocketsphinx
  }
}
