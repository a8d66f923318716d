import Foundation

/// The one rule for which words of a partial hypothesis may stream out before the utterance
/// ends, whatever the protocol: Wyoming's `transcript-chunk`s and Realtime's `delta`s. Neither
/// can be taken back, so a word goes out only once the decoder has settled on it:
///
/// - **Two looks agree.** A look is a hypothesis whose words differ from the one before (the
///   recognizer reports the same words again as its position moves; that is not a second look).
///   The latest look and the one before it must hear the word the same, case and punctuation
///   aside (Moonshine moves a sentence's full stop to its newest word).
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
/// transcript ("M, m, Chitchin, John, John, …" for "And Mr. John Dashwood …"); with this rule,
/// none to two (`Benchmarks/openai/README.md`).
///
/// ```swift
/// var settled = SettledWords()
/// settled.settle(["Go", "for"], finished: 0)          // 0: one look
/// settled.settle(["Go", "forward."], finished: 0)     // 1: "Go"
/// ```
struct SettledWords: Equatable, Sendable {
  /// The latest look, and the one before it.
  private var latest: [String] = []
  private var previous: [String] = []

  init() {}

  /// Takes the words heard so far (`finished` of them from finished utterances, then the
  /// partial hypothesis) and returns how many of them, from the first, have settled.
  mutating func settle(_ words: [String], finished: Int) -> Int {
    if words != latest {
      previous = latest
      latest = words
    }
    let current = words.prefix(Self.lengthBeforeRepeat(words))
    let before = previous.prefix(Self.lengthBeforeRepeat(previous))
    let agreed = zip(current, before).prefix { Self.sameWord($0, $1) }.count
    return max(min(finished, words.count), min(agreed, current.count - 1))
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
