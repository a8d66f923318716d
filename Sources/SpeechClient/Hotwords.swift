import Foundation
import Synchronization

/// Phrases a recognition should favour: the names of lamps, rooms, people and playlists, which
/// a general model knows least. Moonshine biases its decoder towards them; pocketsphinx does
/// not use them (its grammars and key phrases restrict instead).
///
/// Every source of phrases comes here: `transcribe --hotwords`/`--hotwords-file`, a vosk
/// stream's `phrase_list`, an OpenAI `prompt`, a Wyoming `transcribe`'s `context`, Home
/// Assistant's names.
///
/// ```swift
/// var request = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "command.wav")))
/// request.hotwords = Hotwords(Hotwords.phrases(inList: "Kallax, Siobhan, Nanoleaf"))
/// ```
public struct Hotwords: Equatable, Sendable {
  /// The phrases, each a word or a few.
  public var phrases: [String]
  /// How strongly to favour them (added to a favoured token's logit); `nil` for the engine's
  /// default.
  public var boost: Double?

  /// The most phrases a list may hold.
  public static let maximumCount = 1_000
  /// The most characters a phrase may have.
  public static let maximumLength = 100
  /// The boosts accepted.
  public static let boosts: ClosedRange<Double> = 0...20
  /// The boost Moonshine uses when none is given (the same as `MoonshineHotwords.defaultBoost`).
  public static let defaultBoost: Double = 5

  /// Creates a list; by default empty.
  public init(_ phrases: [String] = [], boost: Double? = nil) {
    self.phrases = phrases
    self.boost = boost
  }

  /// Whether there is no phrase to favour.
  public var isEmpty: Bool { phrases.isEmpty }

  /// The phrases of a comma-separated list (`"Kallax, Siobhan, Nanoleaf"`), trimmed, blank
  /// ones left out.
  public static func phrases(inList text: String) -> [String] {
    cleaned(text.split(whereSeparator: { $0 == "," || $0.isNewline }).map(String.init))
  }

  /// The phrases of a file's text: one per line, blank lines and lines starting with `#` left
  /// out.
  public static func phrases(inFile text: String) -> [String] {
    cleaned(
      text.split(whereSeparator: \.isNewline).filter {
        !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
      }.map(String.init))
  }

  /// The hotwords of a prompt written for Whisper-style models (OpenAI's `prompt`): its names.
  ///
  /// Each run of capitalised words (a word whose first letter is upper case: `Aoife Ni Bhriain`,
  /// `Kallax`), up to punctuation, is a phrase, and so is each word with an upper-case letter or
  /// a digit after its first letter (`iPhone`, `SkyQ`). A sentence's first word is a phrase of
  /// its own (it is capitalised anyway). A possessive `'s` and punctuation around words are left
  /// out, as are common words (`The`, `I`, `Please`, … see ``promptStopWords``) at the start
  /// of a run. Lower-case words are not taken: ordinary words need no favour, and a prompt is
  /// mostly ordinary words.
  ///
  /// ```swift
  /// Hotwords.phrases(inPrompt: "The Kallax lamp is in Siobhan's room. Call Aoife Ni Bhriain.")
  /// // ["Kallax", "Siobhan", "Call", "Aoife Ni Bhriain"]
  /// ```
  public static func phrases(inPrompt prompt: String) -> [String] {
    var phrases: [String] = []
    var run: [String] = []
    var startsSentence = true
    func endRun() {
      while let first = run.first, promptStopWords.contains(first.lowercased()) {
        run.removeFirst()
      }
      if !run.isEmpty { phrases.append(run.joined(separator: " ")) }
      run = []
    }
    for token in prompt.split(whereSeparator: \.isWhitespace) {
      var word = Substring(token)
      let endsRun = word.last.map { ".,;:!?)\"”".contains($0) } ?? false
      let endsSentence = word.last.map { ".!?".contains($0) } ?? false
      defer { startsSentence = endsSentence }
      word = word.drop { !($0.isLetter || $0.isNumber) }
      while let last = word.last, !(last.isLetter || last.isNumber) { word = word.dropLast() }
      for suffix in ["'s", "’s"] where word.hasSuffix(suffix) { word = word.dropLast(2) }
      guard let first = word.first else {
        endRun()
        continue
      }
      let rest = word.dropFirst()
      if first.isUppercase, startsSentence {
        endRun()
        if !promptStopWords.contains(word.lowercased()) { phrases.append(String(word)) }
      } else if first.isUppercase {
        run.append(String(word))
      } else {
        endRun()
        if rest.contains(where: { $0.isUppercase || $0.isNumber }) { phrases.append(String(word)) }
      }
      if endsRun { endRun() }
    }
    endRun()
    return cleaned(phrases)
  }

  /// Common words that start sentences, left out of the start of a prompt's runs of capitalised
  /// words (``phrases(inPrompt:)``).
  public static let promptStopWords: Set<String> = [
    "a", "an", "the", "i", "i'm", "i'd", "i'll", "it", "it's", "this", "that", "these", "those",
    "he", "she", "we", "they", "you", "my", "our", "your", "his", "her", "their", "its", "in",
    "on", "at", "to", "for", "of", "with", "from", "by", "as", "if", "and", "but", "or", "so",
    "when", "what", "where", "who", "why", "how", "please", "hello", "hi", "hey", "yes", "no",
    "ok", "okay", "there", "here", "then", "now", "is", "are", "was", "be", "do", "can",
    "could", "would", "will", "should", "let's", "also", "mr", "mrs", "ms", "dr",
  ]

  /// Phrases trimmed, with runs of white space made single spaces, blank ones and repeats
  /// (ignoring case) left out.
  public static func cleaned(_ phrases: [String]) -> [String] {
    var seen = Set<String>()
    return phrases.compactMap { phrase in
      let words = phrase.split(whereSeparator: \.isWhitespace)
      guard !words.isEmpty else { return nil }
      let cleaned = words.joined(separator: " ")
      return seen.insert(cleaned.lowercased()).inserted ? cleaned : nil
    }
  }

  /// These phrases followed by `other`'s (repeats left out), with `other`'s boost when it has
  /// one.
  public func merged(with other: Hotwords) -> Hotwords {
    Hotwords(Self.cleaned(phrases + other.phrases), boost: other.boost ?? boost)
  }

  /// What is wrong with the list, if anything: too many phrases, a phrase too long, a boost out
  /// of range.
  public var problem: Problem? {
    if phrases.count > Self.maximumCount {
      return .tooMany(phrases.count, limit: Self.maximumCount)
    }
    if let index = phrases.firstIndex(where: { $0.count > Self.maximumLength }) {
      return .tooLong(
        phrase: index + 1, characters: phrases[index].count, limit: Self.maximumLength)
    }
    if let boost, !(boost.isFinite && Self.boosts.contains(boost)) {
      return .boostOutOfRange(boost)
    }
    return nil
  }

  /// A problem with a list of phrases.
  public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
    /// More phrases than the limit.
    case tooMany(Int, limit: Int)
    /// A phrase (counted from 1) longer than the limit, in characters.
    case tooLong(phrase: Int, characters: Int, limit: Int)
    /// A boost outside ``Hotwords/boosts``.
    case boostOutOfRange(Double)

    public var description: String {
      switch self {
      case .tooMany(let count, let limit):
        "holds \(count) phrases; at most \(limit) are allowed"
      case .tooLong(let phrase, let characters, let limit):
        "phrase \(phrase) has \(characters) characters; at most \(limit) are allowed"
      case .boostOutOfRange(let boost):
        "the boost \(boost) is outside \(Hotwords.boosts.lowerBound)–"
          + "\(Hotwords.boosts.upperBound)"
      }
    }
  }
}

/// Hotwords that change while a client runs (Home Assistant's names, fetched every few
/// minutes): whoever learns them sets ``current``, and every request started afterwards
/// favours them.
public final class HotwordSource: Sendable {
  private let list = Mutex(Hotwords())

  /// Creates a source with no phrases yet.
  public init() {}

  /// The phrases now.
  public var current: Hotwords {
    get { list.withLock { $0 } }
    set { list.withLock { $0 = newValue } }
  }
}
