import ArgumentParser
import Foundation
import Recognition
import SpeechClientLive

extension Endpointing: ExpressibleByArgument {}

/// `--endpointing` and `--max-silence`, for `transcribe` and `transcribe serve` alike (in a group
/// for the same reason as ``EngineOption``: an option both commands declare would reach only the
/// parent).
struct EndpointingOption: ParsableArguments {
  @Option(
    name: .customLong("endpointing"),
    help: ArgumentHelp(
      """
      How an utterance ends: sentence (the default: a finished sentence ends after the shortest \
      pause, --silence, 0.2 s by default; one that is not finished is held open through a \
      pause of up to --max-silence; Moonshine only) or fixed (every utterance after --silence, \
      0.5 s by default; pocketsphinx always does this).
      """,
      valueName: "sentence|fixed"))
  var endpointing: Endpointing?

  @Option(
    name: .customLong("max-silence"), parsing: .unconditional,
    help: ArgumentHelp(
      """
      With sentence endpointing, the longest pause an unfinished sentence is held open \
      through, in seconds (default 1.5).
      """,
      valueName: "seconds"))
  var maxSilence: Double?

  /// What is wrong with the options, as a usage message naming the fix; `silence` is
  /// `--silence`'s value, if given.
  func problem(silence: Double?) -> String? {
    if let maxSilence {
      if let problem = Transcribe.secondsProblem(maxSilence, limit: 60) {
        return "--max-silence must be a number of seconds (e.g. 1.5): \(problem)."
      }
      if let silence, maxSilence < silence {
        return "--max-silence (\(Self.seconds(maxSilence))) must be at least --silence "
          + "(\(Self.seconds(silence))): it is the longest pause, --silence the shortest."
      }
      if endpointing == .fixed {
        return "--max-silence applies to --endpointing sentence only: drop it, or use "
          + "--silence for the fixed pause."
      }
    }
    return nil
  }

  /// The settings applied to the live client's configuration.
  func apply(to configuration: inout LiveSpeechConfiguration) {
    if let endpointing { configuration.endpointing = endpointing }
    if let maxSilence { configuration.maximumEndOfUtteranceSilence = maxSilence }
  }

  private static func seconds(_ value: Double) -> String {
    String(format: "%g s", value)
  }
}
