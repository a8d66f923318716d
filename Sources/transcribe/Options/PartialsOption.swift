import ArgumentParser
import Recognition
import SpeechClientLive

extension PartialResults: ExpressibleByArgument {}

/// `--partials`, for `transcribe` and `transcribe serve` alike (in a group for the same reason as
/// ``EngineOption``: an option both commands declare would reach only the parent).
struct PartialsOption: ParsableArguments {
  @Option(
    name: .customLong("partials"),
    help: ArgumentHelp(
      """
      How much to spend on the words of an utterance while it is spoken: balanced (the \
      default: new words a little later in a long sentence, for a fraction of a core), fast \
      (new words as soon as a core can find them, up to a whole core per speaker with \
      Moonshine) or off (only each utterance's final words).
      """,
      valueName: "fast|balanced|off"))
  var partials: PartialResults?

  /// The setting applied to the live client's configuration.
  func apply(to configuration: inout LiveSpeechConfiguration) {
    if let partials { configuration.partialResults = partials }
  }
}
