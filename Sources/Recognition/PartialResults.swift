/// How much work a recognizer spends on partial results, the words of an utterance while it goes
/// on.
///
/// Moonshine hears a whole utterance at a time, so each partial result transcribes the utterance
/// so far again: what a stream costs is mostly its partial results. The choice trades how soon new
/// words show against that cost (figures in `Benchmarks/partials/README.md`). pocketsphinx's
/// partial hypotheses are cheap and come as often either way; `off` turns them off too.
///
/// ```swift
/// var configuration = MoonshineConfiguration()
/// configuration.partialResults = .off  // a Home Assistant server: final words only
/// ```
public enum PartialResults: String, CaseIterable, Equatable, Sendable {
  /// A new look as soon as the last one is done: the lowest latency, up to a whole core for one
  /// speaker in a long sentence.
  case fast
  /// Looks spaced so that partial results keep at most a quarter of a core busy per speaker
  /// (fewer as more streams speak at once): new words a little later in a long sentence, for a
  /// fraction of the cost. The default.
  case balanced
  /// No partial results: only each utterance's final words.
  case off

  /// How many times a look's own time the next look waits for, in audio and in wall-clock time:
  /// 1 for ``fast``, 4 for ``balanced`` (a look keeps a core busy a quarter of the time).
  public var costFactor: Double {
    switch self {
    case .fast: 1
    case .balanced: 4
    case .off: .infinity
    }
  }
}
