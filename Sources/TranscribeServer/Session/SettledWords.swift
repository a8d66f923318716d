import Foundation
import SpeechClient

/// The one rule for which words of a partial hypothesis may stream out before the utterance
/// ends, whatever the protocol: Wyoming's `transcript-chunk`s and Realtime's `delta`s. Neither
/// can be taken back, so a word goes out only once the decoder has settled on it:
///
/// - **The decoder is sure of it**: the latest look found it at least 95 % likely (its tokens'
///   probabilities multiplied; Moonshine's partial words carry them). Or **two looks agree**
///   and the latest found it at least 50 % likely (or the engine gives no probability, as
///   pocketsphinx's partial words do). A look is a hypothesis whose words differ from the one
///   before (the recognizer reports the same words again as its position moves; that is not a
///   second look); the latest look and the one before it must hear the word the same, case and
///   punctuation aside (Moonshine moves a sentence's full stop to its newest word).
/// - **Another word follows it**, in the latest look: the newest word is often cut off
///   (`for` before `forward`).
/// - **No loop.** Audio cut off mid-word can make the decoder repeat itself (`John John, John,`
///   or a phrase twice over); a look is read only up to the end of the first copy, and the
///   copy is its newest word or words.
///
/// Words of finished utterances are settled whatever the looks said.
///
/// Measured with Realtime on pocketsphinx-testdata's eight recordings at real-time pace: when
/// every report counted as a look, the deltas of six of them did not read as their final
/// transcript ("M, m, Chitchin, John, John, …" for "And Mr. John Dashwood …"). Moonshine's
/// first looks at a word cut off mid-way are wrong in the same ways, but unsure of it ("So"
/// 30 %, "Don't." 15 % before "Go" 95 %), so a sure word need not wait for a second look, and
/// two unsure looks that happen to agree ("Addie" 24 %) do not settle a word
/// (`Benchmarks/openai/README.md`).
///
/// ```swift
/// var settled = SettledWords()
/// settled.settle(["Go", "for"], finished: 0)          // 0: one look
/// settled.settle(["Go", "forward."], finished: 0)     // 1: "Go"
/// ```
struct SettledWords: Equatable, Sendable {
  /// A word of a look, and how likely the decoder found it, when the engine says.
  struct Word: Equatable, Sendable {
    var text: String
    var probability: Double?

    init(_ text: String, probability: Double? = nil) {
      self.text = text
      self.probability = probability
    }

    /// A recognized word: the product of its tokens' probabilities, when it has tokens.
    init(_ segment: TranscriptionSegment) {
      self.init(
        segment.substring,
        probability: segment.tokens.isEmpty
          ? nil : exp(segment.tokens.reduce(0) { $0 + $1.logprob }))
    }
  }

  /// How likely a word must be for one look to settle it: 0.95.
  static let sureProbability = 0.95
  /// How likely a word two looks agree on must be: 0.5.
  static let agreedProbability = 0.5

  /// The latest look, and the one before it.
  private var latest: [String] = []
  private var previous: [String] = []

  init() {}

  /// Takes the words heard so far (`finished` of them from finished utterances, then the
  /// partial hypothesis) and returns how many of them, from the first, have settled.
  mutating func settle(_ words: [Word], finished: Int) -> Int {
    let texts = words.map(\.text)
    if texts != latest {
      previous = latest
      latest = texts
    }
    let current = words.prefix(Self.lengthBeforeRepeat(texts))
    let before = previous.prefix(Self.lengthBeforeRepeat(previous))
    let settled = current.dropLast().enumerated().prefix { index, word in
      if let probability = word.probability, probability >= Self.sureProbability { return true }
      let agrees = index < before.count && Self.sameWord(word.text, before[index])
      return agrees && (word.probability ?? 1) >= Self.agreedProbability
    }.count
    return max(min(finished, words.count), settled)
  }

  /// ``settle(_:finished:)`` for words without probabilities (pocketsphinx's partial words).
  mutating func settle(_ texts: [String], finished: Int) -> Int {
    settle(texts.map { Word($0) }, finished: finished)
  }

  /// Forgets the looks: a new utterance or item begins.
  mutating func reset() {
    latest = []
    previous = []
  }

  /// Whether two looks heard the same word, whatever its case and punctuation (`He,` and
  /// `he`).
  static func sameWord(_ first: String, _ second: String) -> Bool {
    first == second || letters(first) == letters(second)
  }

  /// How many of `words` come before a repeat: the first place where the words just before
  /// it (one to twelve of them) come again at once. The first copy is kept.
  static func lengthBeforeRepeat(_ words: [String]) -> Int {
    let spelled = words.map(letters)
    guard spelled.count > 1 else { return spelled.count }
    for end in 1..<spelled.count {
      for length in 1...min(12, end) where end + length <= spelled.count {
        if spelled[(end - length)..<end].elementsEqual(spelled[end..<(end + length)]) {
          return end
        }
      }
    }
    return spelled.count
  }

  private static func letters(_ word: String) -> String {
    String(word.lowercased().unicodeScalars.filter(CharacterSet.alphanumerics.contains))
  }
}
