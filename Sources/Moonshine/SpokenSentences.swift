import Foundation

/// Splits one transcription of a stretch of speech into its sentences, at the pauses where the
/// text ends one: how a file keeps its sentences whole with sentence endpointing.
///
/// A live stream must decide at each pause whether the sentence is over before it hears what
/// follows (``SentenceEnd``). A file has what follows: the recognizer transcribes a whole piece
/// of it (speech with pauses shorter than the longest an unfinished sentence is held through),
/// so the model hears both sides of every pause, and its text says where its sentences end. A
/// thinking pause after a clause that could end a sentence ("He might even have been made |
/// amiable himself.") gets no full stop when the model hears the words after it.
///
/// The model's text has no times, so its words are placed in the speech it heard: the speech is
/// a list of runs (where the detector heard speech, the gaps between them pauses long enough to
/// end an utterance), and ``split(words:runs:)`` finds the order-keeping assignment of words to
/// runs that best fits
///
/// - each run's length, at the piece's mean speaking rate (characters per second of speech);
/// - punctuation at pauses: readers pause at full stops and commas, seldom inside a phrase.
///
/// A sentence end (`. ? !` or `…` that the next word confirms by starting with a capital, and
/// not an abbreviation such as `Mr.`) that falls at a pause ends a part; one with no pause
/// after it does not (a live stream would not have ended there either). Each word's time is
/// its share, by length, of the run it was placed in.
///
/// ```swift
/// let parts = SpokenSentences.split(
///   words: ["He", "was", "not.", "Unless", "to", "be."], runs: [0.3..<1.1, 1.8..<2.6])
/// // two parts: words 0..<3 in the first run, 3..<6 in the second
/// ```
public enum SpokenSentences {
  /// A sentence (or several run together) and where its words are.
  public struct Part: Equatable, Sendable {
    /// The indices of the part's words.
    public var words: Range<Int>
    /// Each word's estimated start and length in seconds, in the runs' time.
    public var times: [(start: TimeInterval, duration: TimeInterval)]

    public static func == (left: Part, right: Part) -> Bool {
      left.words == right.words
        && left.times.elementsEqual(right.times) {
          $0.start == $1.start && $0.duration == $1.duration
        }
    }
  }

  /// Splits `words` (one transcription, in order) into parts at the pauses where a sentence
  /// ends; `runs` are the stretches of speech it was heard from, in order, with the pauses
  /// between them. With no runs, or no words, the words make one part with times spread evenly
  /// over the runs' span (or at 0).
  public static func split(words: [String], runs: [Range<TimeInterval>]) -> [Part] {
    guard !words.isEmpty else { return [] }
    let runs = runs.filter { !$0.isEmpty }
    guard !runs.isEmpty else {
      return [Part(words: 0..<words.count, times: share(words[...], over: 0..<0))]
    }
    let boundaries = runs.count == 1 ? [] : align(words, runs)
    // Words of each run: run `r` holds `bounds[r]..<bounds[r + 1]`.
    let bounds = [0] + boundaries + [words.count]
    var times: [(start: TimeInterval, duration: TimeInterval)] = []
    for (index, run) in runs.enumerated() {
      times += share(words[bounds[index]..<bounds[index + 1]], over: run)
    }
    var parts: [Part] = []
    var start = 0
    for end in boundaries where end > start && end < words.count && endsSentence(words, at: end - 1)
    {
      parts.append(Part(words: start..<end, times: Array(times[start..<end])))
      start = end
    }
    parts.append(Part(words: start..<words.count, times: Array(times[start...])))
    return parts
  }

  /// Whether word `index` ends a sentence: it ends in `. ? !` or `…` (maybe then closing quotes),
  /// is not an abbreviation, and the next word, if any, starts as a sentence does.
  static func endsSentence(_ words: [String], at index: Int) -> Bool {
    let word = words[index]
    guard SentenceEnd.endsSentence(word) else { return false }
    let bare = word.lowercased().filter { $0.isLetter }
    guard !abbreviations.contains(bare) else { return false }
    guard index + 1 < words.count else { return true }
    let next = words[index + 1].first { $0.isLetter || $0.isNumber }
    return next.map { $0.isUppercase || $0.isNumber } ?? true
  }

  /// Titles and the like that end in a full stop without ending a sentence.
  static let abbreviations: Set<String> = [
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "rev", "vs", "etc", "eg", "ie", "no",
    "mt", "ft", "col", "gen", "lt", "sgt", "capt", "gov", "sen", "rep",
  ]

  /// How much a pause after a word fits its punctuation: readers pause at the ends of sentences
  /// and clauses; a pause inside a phrase (a hesitation) is less likely.
  private static func pauseCost(after word: String) -> Double {
    if SentenceEnd.endsSentence(word) { return -2 }
    if let last = word.last(where: { !TokenClass.closingCharacters.contains($0) }),
      TokenClass.continuingCharacters.contains(last)
    {
      return -1
    }
    return 0.5
  }

  /// The word index at which each pause (between run `r` and `r + 1`) falls, non-decreasing:
  /// the assignment of words to runs with the least cost (run lengths against the speaking
  /// rate, and punctuation at pauses), by dynamic programming over (pause, word index).
  private static func align(_ words: [String], _ runs: [Range<TimeInterval>]) -> [Int] {
    let count = words.count
    // Prefix sums of the words' lengths in characters (as word times are shared).
    var characters = [0.0]
    for word in words { characters.append(characters.last! + Double(max(1, word.count))) }
    let speech = runs.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
    let perCharacter = speech / characters[count]
    let pauseCosts = words.map(pauseCost(after:))
    func runCost(_ run: Range<TimeInterval>, _ from: Int, _ to: Int) -> Double {
      let length = run.upperBound - run.lowerBound
      let expected = (characters[to] - characters[from]) * perCharacter
      let spread = 0.3 + 0.2 * length
      let misfit = (expected - length) / spread
      // A run with no words is noise or breath the model wrote nothing for: possible, but it
      // should not be where words are made to fit.
      return misfit * misfit + (to == from ? 1 : 0)
    }
    // cost[b]: the least cost of runs 0...r with run r ending before word b.
    var cost = (0...count).map { runCost(runs[0], 0, $0) }
    var choices: [[Int]] = []
    for run in runs.indices.dropFirst() {
      var next = [Double](repeating: .infinity, count: count + 1)
      var choice = [Int](repeating: 0, count: count + 1)
      for end in 0...count {
        for start in 0...end {
          let pause = start > 0 && start < count ? pauseCosts[start - 1] : 0
          let total = cost[start] + pause + runCost(runs[run], start, end)
          if total < next[end] {
            next[end] = total
            choice[end] = start
          }
        }
      }
      cost = next
      choices.append(choice)
    }
    // Back from the last run, which ends after the last word.
    var boundaries: [Int] = []
    var end = count
    for choice in choices.reversed() {
      end = choice[end]
      boundaries.append(end)
    }
    return boundaries.reversed()
  }

  /// Shares `run` among `words` in proportion to their lengths.
  private static func share(
    _ words: ArraySlice<String>, over run: Range<TimeInterval>
  ) -> [(start: TimeInterval, duration: TimeInterval)] {
    let characters = words.reduce(0) { $0 + max(1, $1.count) }
    guard characters > 0 else { return [] }
    let perCharacter = (run.upperBound - run.lowerBound) / Double(characters)
    var time = run.lowerBound
    return words.map { word in
      let duration = Double(max(1, word.count)) * perCharacter
      defer { time += duration }
      return (time, duration)
    }
  }
}
