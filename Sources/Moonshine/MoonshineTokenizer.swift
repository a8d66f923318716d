import Foundation
import Recognition

/// Moonshine's vocabulary, read from `tokenizer.bin`: token ids to the bytes they stand for.
///
/// The file holds one byte string per token id, in id order, each prefixed by its length: one
/// byte for lengths below 128; otherwise the first byte holds the low 7 bits with its top bit set
/// and a second byte the rest (`length = (b0 & 0x7F) | b1 << 7`). Ids 0–2 are `<unk>`, `<s>` and
/// `</s>`; ids 3–258 are byte-fallback tokens holding one raw byte each; `▁` (U+2581) marks a
/// space.
struct MoonshineTokenizer: Sendable {
  /// Each token's bytes, with `▁` already replaced by a space.
  let pieces: [[UInt8]]
  /// What each token id writes, for the signals at a pause (``PauseSignals``), for every id the
  /// model's logits have (32768; the ids past the vocabulary write nothing and count as words).
  let classes: [TokenClass]

  /// How many tokens Moonshine's English vocabulary has.
  static let vocabularySize = 32_000
  /// Ids below this are special tokens and stand for no text.
  static let firstTextToken: Int32 = 3
  /// The id of `<s>`, which starts the decoder's input.
  static let beginningOfText: Int32 = 1
  /// The id of `</s>`, which the decoder produces at the end.
  static let endOfText: Int32 = 2

  /// Reads a tokenizer file.
  ///
  /// - Throws: `RecognitionFailure.modelCorrupt` naming the file when it cannot be read, a length
  ///   runs past its end, or it has too few tokens to be Moonshine's.
  init(contentsOf url: URL) throws(RecognitionFailure) {
    pieces = try Self.pieces(contentsOf: url)
    classes = Self.classes(of: pieces)
  }

  /// Checks a tokenizer file as ``init(contentsOf:)`` does, without sorting its tokens.
  static func check(contentsOf url: URL) throws(RecognitionFailure) {
    _ = try pieces(contentsOf: url)
  }

  /// Reads and parses a tokenizer file: each token's bytes.
  private static func pieces(contentsOf url: URL) throws(RecognitionFailure) -> [[UInt8]] {
    guard let data = try? Data(contentsOf: url) else {
      throw .modelCorrupt("\(url.path) cannot be read")
    }
    let pieces: [[UInt8]]
    do {
      pieces = try parse([UInt8](data))
    } catch {
      throw .modelCorrupt("\(url.path) is not a Moonshine tokenizer: \(error.description)")
    }
    // A file cut short can still end on a token's boundary: only the count tells.
    guard pieces.count == vocabularySize else {
      throw .modelCorrupt(
        "\(url.path) is not a Moonshine tokenizer: it has \(pieces.count) tokens, not "
          + "\(vocabularySize) (cut short, or another model's)")
    }
    return pieces
  }

  /// Sorts the tokens (see ``TokenClass``): a token is punctuation when its text, spaces aside,
  /// is not empty and has no letter or digit; byte-fallback tokens count as the character they
  /// hold.
  ///
  /// Most tokens are ASCII letters, which are words at a glance: only the others are read as
  /// characters (whose Unicode properties cost a lookup each, 32,000 tokens at every start).
  static func classes(of pieces: [[UInt8]]) -> [TokenClass] {
    var classes = [TokenClass](repeating: .word, count: 32_768)
    classes[Int(endOfText)] = .endOfText
    for (id, piece) in pieces.enumerated() where id >= Int(firstTextToken) {
      guard !piece.contains(where: isASCIILetterOrDigit) else { continue }
      let text = String(decoding: piece, as: UTF8.self).filter { !$0.isWhitespace }
      guard !text.isEmpty, !text.contains(where: { $0.isLetter || $0.isNumber }) else {
        continue
      }
      let characters = Set(text)
      if characters.isSubset(of: TokenClass.terminalCharacters.union(TokenClass.closingCharacters)),
        !characters.isDisjoint(with: TokenClass.terminalCharacters)
      {
        classes[id] = .terminal
      } else if characters.isSubset(
        of: TokenClass.continuingCharacters.union(TokenClass.closingCharacters)),
        !characters.isDisjoint(with: TokenClass.continuingCharacters)
      {
        classes[id] = .continuing
      } else {
        classes[id] = .punctuation
      }
    }
    return classes
  }

  /// Whether `byte` is an ASCII letter or digit: such a token is a word, whatever else it holds.
  private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  /// Parses the file's bytes; throws what is wrong with them.
  static func parse(_ bytes: [UInt8]) throws(ProblemDescription) -> [[UInt8]] {
    var pieces: [[UInt8]] = []
    var position = 0
    while position < bytes.count {
      var length = Int(bytes[position])
      position += 1
      if length >= 128 {
        guard position < bytes.count else {
          throw ProblemDescription("it ends inside token \(pieces.count)'s length")
        }
        length = (length & 0x7F) | Int(bytes[position]) << 7
        position += 1
      }
      guard position + length <= bytes.count else {
        throw ProblemDescription("token \(pieces.count) runs past the end of the file")
      }
      pieces.append(spaced(bytes[position..<position + length]))
      position += length
    }
    // 3 special tokens, 256 byte tokens, then the vocabulary proper.
    guard pieces.count > 259 else {
      throw ProblemDescription("it has \(pieces.count) tokens")
    }
    guard pieces[1] == Array("<s>".utf8), pieces[2] == Array("</s>".utf8) else {
      throw ProblemDescription("tokens 1 and 2 are not <s> and </s>")
    }
    return pieces
  }

  /// A token's bytes with each `▁` (E2 96 81) replaced by a space.
  private static func spaced(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
      if bytes[index] == 0xE2, index + 2 < bytes.endIndex, bytes[index + 1] == 0x96,
        bytes[index + 2] == 0x81
      {
        result.append(0x20)
        index += 3
      } else {
        result.append(bytes[index])
        index += 1
      }
    }
    return result
  }

  /// The bytes token `id` stands for: none for special tokens and ids past the vocabulary (the
  /// model's logits are padded to 32768).
  func bytes(of id: Int32) -> [UInt8] {
    guard id >= Self.firstTextToken, Int(id) < pieces.count else { return [] }
    return pieces[Int(id)]
  }

  /// Splits tokens into words at spaces; each word lists the indices (into `tokens`) of the tokens
  /// that wrote it. A token that writes a space and letters belongs to the word of its letters.
  func words(of tokens: [Int32]) -> [(text: String, tokens: [Int])] {
    var words: [(text: String, tokens: [Int])] = []
    var bytes: [UInt8] = []
    var owners: [Int] = []
    func endWord() {
      guard !bytes.isEmpty else { return }
      var seen = Set<Int>()
      let wordTokens = owners.filter { seen.insert($0).inserted }
      words.append((String(decoding: bytes, as: UTF8.self), wordTokens))
      bytes = []
      owners = []
    }
    for (index, token) in tokens.enumerated() {
      for byte in self.bytes(of: token) {
        if byte == 0x20 {
          endWord()
        } else {
          bytes.append(byte)
          owners.append(index)
        }
      }
    }
    endWord()
    return words
  }
}

/// What a token writes, as the signals at a pause count it.
enum TokenClass: UInt8, Sendable {
  /// Anything but punctuation and `</s>`: a word or part of one (and the special tokens).
  case word = 0
  /// Only sentence-ending marks (`. ? ! …`), maybe with closing quotes or brackets: `.`, `?"`.
  case terminal = 1
  /// Only marks that go on (`, ; : — – -`), maybe with closing quotes: `,`, `",`.
  case continuing = 2
  /// Other punctuation: opening quotes, brackets, `&`...
  case punctuation = 3
  /// `</s>`, the end of the text.
  case endOfText = 4

  static let terminalCharacters: Set<Character> = [".", "?", "!", "…"]
  static let continuingCharacters: Set<Character> = [",", ";", ":", "—", "–", "-"]
  static let closingCharacters: Set<Character> = ["\"", "'", "”", "’", "»", ")"]
}
