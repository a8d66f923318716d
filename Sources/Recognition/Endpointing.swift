import Foundation

/// How a recognizer decides that an utterance is over.
///
/// People pause inside sentences (to think, to breathe, before a name), and a fixed pause cannot
/// tell such a pause from the end: cut there, each half loses its context and the model reads
/// the first half as a sentence and misreads the start of the second. With ``sentence``, the
/// recognizer transcribes the utterance as soon as the pause begins and asks whether what was
/// said is finished (its punctuation, and the probabilities the model gives to more words and to
/// a comma after the last one): a finished sentence ends after the shortest pause, and any other
/// is held open through a longer pause (up to a bound). Measurements and the rule are in
/// `Benchmarks/endpointing/README.md`.
///
/// Only Moonshine judges sentences; pocketsphinx always ends an utterance after the fixed pause.
///
/// ```swift
/// var configuration = MoonshineConfiguration()
/// configuration.endpointing = .sentence
/// configuration.endOfUtteranceSilence = Endpointing.sentence.defaultSilence  // 0.2 s
/// configuration.maximumEndOfUtteranceSilence = 1.5
/// ```
public enum Endpointing: String, CaseIterable, Equatable, Sendable {
  /// An utterance ends after a fixed pause (`--silence`, 0.5 s by default).
  case fixed
  /// An utterance ends early when the sentence is finished, and is held open through a longer
  /// pause when it is not. The default with Moonshine.
  case sentence

  /// The pause that ends an utterance when none is given: 0.5 s for ``fixed``; for
  /// ``sentence``, the shortest pause, after which a finished sentence ends: 0.2 s.
  public var defaultSilence: TimeInterval {
    switch self {
    case .fixed: Self.fixedSilence
    case .sentence: 0.2
    }
  }

  /// The fixed pause by default: 0.5 s.
  public static let fixedSilence: TimeInterval = 0.5

  /// The longest pause an unfinished sentence is held open through by default: 1.5 s.
  public static let defaultMaximumSilence: TimeInterval = 1.5

  /// The pause that ends an utterance when a stream asks for this endpointing without naming a
  /// pause (an OpenAI `server_vad` without `silence_duration_ms`): the configured pause when the
  /// configuration ends utterances this way too, else this way's default. A sentence
  /// configuration's 0.2 s is its shortest pause, not a fixed one.
  public func silence(
    configuredFor configured: Endpointing, configuredSilence: TimeInterval
  ) -> TimeInterval {
    self == configured ? configuredSilence : defaultSilence
  }
}
