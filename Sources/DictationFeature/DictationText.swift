import Foundation

/// How dictated utterances become keystrokes, spaced and capitalised as a person types them.
///
/// - A space goes between utterances; none at the start of the text or of a line, and none
///   before punctuation.
/// - A capital letter only where a sentence begins: at the start, after `. ? !` and after a
///   spoken new line. An utterance that continues a sentence (the one before ended without
///   `. ? !`) starts in lower case, except for "I", words in capitals ("NASA") and known
///   ``Names``: the model capitalises every utterance's first word, so its capital there says
///   nothing, but a word the user gave as a hotword with a capital, or one the model wrote with
///   a capital inside a sentence earlier ("Good morning, Dave."), keeps it. A name first heard
///   at the start of an utterance that continues a sentence still loses its capital.
/// - A fragment: when the text typed before ends in a word that cannot end a sentence followed
///   by a full stop ("Turn on the."), a pause cut the sentence; the next utterance erases that
///   full stop and goes on in lower case ("Turn on the kitchen lights.").
/// - Spoken commands (``Command``), unless turned off: "new line" and "new paragraph" anywhere
///   in an utterance, "scratch that" as a whole utterance.
public enum DictationText {
  /// A spoken command.
  public enum Command: String, CaseIterable, Equatable, Sendable {
    /// "new line": presses Return.
    case newLine = "new line"
    /// "new paragraph": presses Return twice.
    case newParagraph = "new paragraph"
    /// "scratch that": erases the last typed utterance.
    case scratchThat = "scratch that"

    /// The keystrokes of a line-breaking command (none for "scratch that", which erases).
    public var keystrokes: String {
      switch self {
      case .newLine: "\n"
      case .newParagraph: "\n\n"
      case .scratchThat: ""
      }
    }
  }

  /// One piece of an utterance: words to type, or a command.
  public enum Piece: Equatable, Sendable {
    case words(String)
    case command(Command)
  }

  /// Splits an utterance into words and commands. "scratch that" counts only as the whole
  /// utterance (said alone); the line commands anywhere, their own punctuation dropped.
  public static func pieces(of utterance: String, commands: Bool) -> [Piece] {
    let words = utterance.split(whereSeparator: \.isWhitespace).map(String.init)
    guard commands, !words.isEmpty else {
      return words.isEmpty ? [] : [.words(words.joined(separator: " "))]
    }
    let bare = words.map(Self.bare)
    if bare == ["scratch", "that"] { return [.command(.scratchThat)] }
    var pieces: [Piece] = []
    var run: [String] = []
    var index = 0
    while index < words.count {
      if index + 1 < words.count, bare[index] == "new",
        let command = [Command.newLine, .newParagraph].first(where: {
          $0.rawValue == "new " + bare[index + 1]
        })
      {
        if !run.isEmpty { pieces.append(.words(run.joined(separator: " "))) }
        run = []
        pieces.append(.command(command))
        index += 2
      } else {
        run.append(words[index])
        index += 1
      }
    }
    if !run.isEmpty { pieces.append(.words(run.joined(separator: " "))) }
    return pieces
  }

  /// A word in lower case without punctuation around it.
  static func bare(_ word: String) -> String {
    String(word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" || $0 == "’" })
  }

  /// Punctuation that ends a sentence.
  static let sentenceEnds: Set<Character> = [".", "?", "!", "…"]
  /// Punctuation typed without a space before it.
  static let closingPunctuation: Set<Character> = [
    ".", ",", ";", ":", "?", "!", "…", ")", "]", "}", "%", "’", "'", "\"", "”",
  ]
  /// Quotes and brackets that may follow the end of a sentence (`"Stop."`).
  static let closers: Set<Character> = ["\"", "”", "’", "'", ")", "]"]

  /// Words that do not end an English sentence (articles, conjunctions, possessives; not verbs
  /// or particles, which do: "than he was.", "come in."): a full stop after one of them marks a
  /// fragment cut by a pause.
  static let holdWords: Set<String> = [
    "a", "an", "the", "of", "and", "or", "but", "nor", "because", "than", "my", "your", "our",
    "their", "its", "into", "onto", "whose",
  ]

  /// Abbreviations whose full stop ends no sentence (without it, in lower case).
  public static let abbreviations: Set<String> = [
    "mr", "mrs", "ms", "dr", "st", "prof", "jr", "sr", "vs", "e.g", "i.e", "etc", "no", "mt",
  ]

  /// Words that keep their capital at the start of an utterance that continues a sentence.
  ///
  /// Two sources, both kept as bare lower-case words (``bare(_:)``):
  /// - the user's own: each word written with a capital in the hotwords (`--hotwords "Dave,
  ///   Kallax"`; "living room" gives none);
  /// - the model's: a word it wrote with a capital inside a sentence (not first in its
  ///   utterance, nor after `. ? !` or a line break) is a name, until it writes the same word in
  ///   lower case inside a sentence ("Will" the name, then "will" the verb). At most
  ///   ``limit`` are kept, the most recently seen.
  public struct Names: Equatable, Sendable {
    /// The user's names.
    public var given: Set<String>
    /// The model's names, least recently seen first.
    public internal(set) var learned: [String] = []
    /// The most model's names kept.
    public var limit = 200

    /// Names from the user's hotwords: each word of a phrase written with a capital.
    public init(hotwords phrases: [String] = []) {
      given = Set(
        phrases.flatMap { $0.split(whereSeparator: \.isWhitespace) }
          .filter { $0.first(where: \.isLetter)?.isUppercase == true }
          .map { DictationText.bare(String($0)) }
          .filter { !$0.isEmpty })
    }

    /// Whether `word` (as typed, punctuation and all) is a name.
    public func contains(_ word: String) -> Bool {
      let bare = DictationText.bare(word)
      return given.contains(bare) || learned.contains(bare)
    }

    /// Learns from an utterance as the model wrote it: its capitalised words inside a sentence
    /// become names, its lower-case ones there stop being names.
    public mutating func learn(from utterance: String) {
      var previous: Substring?
      for word in utterance.split(whereSeparator: \.isWhitespace) {
        defer { previous = word }
        // The first word and one after a sentence end are capitalised anyway: they say nothing.
        guard let previous, !DictationText.endsSentence(previous) || Self.isAbbreviation(previous)
        else { continue }
        let bare = DictationText.bare(String(word))
        guard let first = word.first(where: \.isLetter), !bare.isEmpty, bare != "i",
          !bare.hasPrefix("i'"), !bare.hasPrefix("i’")
        else { continue }
        learned.removeAll { $0 == bare }
        if first.isUppercase {
          learned.append(bare)
          if learned.count > limit { learned.removeFirst(learned.count - limit) }
        }
      }
    }

    static func isAbbreviation(_ word: Substring) -> Bool {
      word.last == "." && DictationText.abbreviations.contains(String(word.dropLast()).lowercased())
    }
  }

  /// Whether a word as written ends a sentence: `. ? !` or `…`, maybe then closing quotes or
  /// brackets.
  static func endsSentence(_ word: Substring) -> Bool {
    let trimmed = word.reversed().drop { closers.contains($0) }
    return trimmed.first.map(sentenceEnds.contains) ?? false
  }

  /// What the text typed so far ends with: all the spacing rules need.
  public struct Context: Equatable, Sendable {
    /// The last characters typed (at most a few), or empty at the start.
    public var tail: String

    /// Nothing typed yet.
    public static let start = Context(tail: "")

    /// Creates a context from the text typed so far (only its end matters).
    public init(tail: String) {
      self.tail = String(tail.suffix(Self.kept))
    }

    static let kept = 40

    /// The context after `text` is typed.
    public func after(_ text: String) -> Context {
      Context(tail: tail + text)
    }

    /// The context after the last `count` characters are erased.
    public func erasing(_ count: Int) -> Context {
      Context(tail: String(tail.dropLast(count)))
    }

    var isLineStart: Bool { tail.isEmpty || tail.last == "\n" }

    /// Whether the next word begins a sentence.
    var beginsSentence: Bool {
      let trimmed = tail.reversed().drop { $0 == " " || DictationText.closers.contains($0) }
      guard let last = trimmed.first else { return true }
      if followsAbbreviation { return false }
      return last == "\n" || DictationText.sentenceEnds.contains(last)
    }

    /// Whether the text ends in an abbreviation ("Mr.", "e.g."), which ends no sentence and is
    /// often followed by a name.
    var followsAbbreviation: Bool {
      let trimmed = tail.reversed().drop { $0 == " " }
      guard trimmed.first == "." else { return false }
      let word = String(trimmed.dropFirst().prefix { !$0.isWhitespace }.reversed())
      return DictationText.abbreviations.contains(word.lowercased())
    }

    /// Whether the text ends in a fragment: a word that cannot end a sentence and a full stop.
    var endsInFragment: Bool {
      guard tail.last == "." else { return false }
      let words = tail.dropLast().split(whereSeparator: { $0 == " " || $0 == "\n" })
      guard let last = words.last else { return false }
      return DictationText.holdWords.contains(DictationText.bare(String(last)))
    }
  }

  /// The keystrokes that type `words` after `context`: how many characters to erase first (a
  /// fragment's full stop), and the text. A first word among `names` keeps its capital.
  public static func keystrokes(
    for words: String, after context: Context, names: Names = Names()
  ) -> (erase: Int, text: String) {
    var words = words.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let first = words.first else { return (0, "") }
    var erase = 0
    var context = context
    if context.endsInFragment, first.isLetter {
      erase = 1
      context = context.erasing(1)
    }
    if context.beginsSentence {
      words = capitalisingFirstLetter(words)
    } else if context.followsAbbreviation {
      // Left as the model wrote it: usually a name.
    } else if erase == 1 || !context.isLineStart {
      let firstWord = String(words.prefix { !$0.isWhitespace })
      if !names.contains(firstWord) { words = lowercasingFirstWord(words) }
    }
    let space = context.isLineStart || closingPunctuation.contains(first) ? "" : " "
    return (erase, space + words)
  }

  static func capitalisingFirstLetter(_ text: String) -> String {
    guard let index = text.firstIndex(where: \.isLetter) else { return text }
    return text[..<index] + text[index].uppercased() + text[text.index(after: index)...]
  }

  /// Lowers the first word's capital, unless it is "I" ("I'm", "I'll") or written in capitals.
  static func lowercasingFirstWord(_ text: String) -> String {
    let firstWord = text.prefix { !$0.isWhitespace }
    let letters = firstWord.filter(\.isLetter)
    guard let index = text.firstIndex(where: \.isLetter), text[index].isUppercase else {
      return text
    }
    let bareWord = bare(String(firstWord))
    if bareWord == "i" || bareWord.hasPrefix("i'") || bareWord.hasPrefix("i’") { return text }
    if letters.count > 1, letters.allSatisfy(\.isUppercase) { return text }
    return text[..<index] + text[index].lowercased() + text[text.index(after: index)...]
  }
}
