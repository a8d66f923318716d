import ArgumentParser
import SpeechClient

extension SpeechRecognitionRequest.EngineName: ExpressibleByArgument {
  public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// `--engine`, for `transcribe` and `transcribe serve` alike (in a group for the same reason as
/// ``PreviewOption``: an option both commands declare would reach only the parent).
struct EngineOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      """
      The recognition engine: moonshine (accurate, punctuated) or pocketsphinx (light; grammars \
      and key phrases). Default: $TRANSCRIBE_ENGINE, else Moonshine when it is installed.
      """,
      valueName: "engine"))
  var engine: SpeechRecognitionRequest.EngineName?
}
