import Foundation
import Testing

@testable import Moonshine

/// The hotword tree and the biased choice, over a tiny vocabulary.
struct HotwordTests {
  /// Tokens after the 259 special and raw-byte ones.
  static let words: [String] = [
    " k", "all", "ax", " call", "yx", " lamp", " the", " K", "al", "lax", " ", "s", " sio",
    "bhan", ".", " s", "bh",
  ]
  static let vocabulary = HotwordVocabulary(
    pieces: Array(repeating: [], count: 259) + words.map { Array($0.utf8) }, first: 259)
  static let count = 259 + words.count

  static func id(_ piece: String) -> Int32 {
    Int32(259 + words.firstIndex(of: piece)!)
  }

  /// A row of logits: -10 everywhere but for the pieces given.
  static func row(_ scores: [String: Float]) -> [Float] {
    var row = [Float](repeating: -10, count: count)
    for (piece, score) in scores { row[Int(id(piece))] = score }
    return row
  }

  static func hotwords(_ phrases: [String], boost: Float = 5) -> MoonshineHotwords {
    MoonshineHotwords(phrases: phrases, boost: boost, vocabulary: vocabulary)
  }

  @Test func phrasesAreSpelledAsWordsInLowerCase() {
    #expect(
      MoonshineHotwords.spelling(of: "  Aoife   Ni\tBhriain ") == Array(" aoife ni bhriain".utf8))
    #expect(MoonshineHotwords.spelling(of: " \n ").isEmpty)
    let list = Self.hotwords(["Kallax", "  ", "lamp"])
    #expect(list.phrases == ["Kallax", "lamp"])
    #expect(!list.isEmpty)
    #expect(Self.hotwords([]).isEmpty)
  }

  @Test func theTreeListsEveryTokenThatSpellsOnAPhrase() {
    let list = Self.hotwords(["Kallax"])
    let root = list.nodes[0]
    // Both cases of " k" start it; " call" does not, and a bare space favours nothing.
    #expect(Set(root.steps.map(\.token)) == [Self.id(" k"), Self.id(" K")])
    let afterK = list.nodes[Int(root.targets[Self.id(" k")]!)]
    #expect(root.targets[Self.id(" k")] == root.targets[Self.id(" K")])
    #expect(Set(afterK.steps.map(\.token)) == [Self.id("all"), Self.id("al")])
    let afterKall = list.nodes[Int(afterK.targets[Self.id("all")]!)]
    #expect(Set(afterKall.steps.map(\.token)) == [Self.id("ax")])
    #expect(!afterKall.isEnd)
    #expect(list.nodes[Int(afterKall.targets[Self.id("ax")]!)].isEnd)
    let afterKal = list.nodes[Int(afterK.targets[Self.id("al")]!)]
    #expect(Set(afterKal.steps.map(\.token)) == [Self.id("lax")])
  }

  /// Chooses from each row in turn, going back when the cursor says so; returns the tokens.
  static func decode(
    _ rows: [[Float]], hotwords: MoonshineHotwords
  ) -> (
    tokens: [Int32], takeBacks: Int
  ) {
    var cursor = HotwordCursor(hotwords)
    var tokens: [Int32] = []
    var next = rows[0].withUnsafeBufferPointer {
      cursor.choose($0.baseAddress!, count: count, position: 0).token
    }
    while true {
      if let choice = cursor.goBack() {
        tokens.removeLast(tokens.count - choice.position)
        next = choice.row.withUnsafeBufferPointer {
          cursor.choose($0.baseAddress!, count: count, position: choice.position).token
        }
        continue
      }
      tokens.append(next)
      guard tokens.count < rows.count else { break }
      next = rows[tokens.count].withUnsafeBufferPointer {
        cursor.choose($0.baseAddress!, count: count, position: tokens.count).token
      }
    }
    return (tokens, cursor.takeBacks)
  }

  @Test func theBonusSpellsAPhraseTheModelNearlyHeard() {
    let rows = [
      Self.row([" call": 3, " k": 1, " K": 0.5]),
      Self.row(["yx": 3, "all": 1]),
      Self.row(["ax": 2, "yx": 1]),
      Self.row([".": 4]),
    ]
    let plain = Self.decode(rows, hotwords: Self.hotwords([]))
    #expect(plain.tokens == [" call", "yx", "ax", "."].map(Self.id))
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax"]))
    #expect(biased.tokens == [" k", "all", "ax", "."].map(Self.id))
    #expect(biased.takeBacks == 0)
  }

  @Test func anAbandonedPhraseIsTakenBackToTheFirstChoiceTheBonusChanged() {
    // The bonus makes " k" and then " K" win the first choice, but the model is sure of "yx"
    // after either: both are taken back, and the model's own words remain.
    let rows = [
      Self.row([" call": 3, " k": 1, " K": 0.5]),
      Self.row(["yx": 9, "all": 1]),
      Self.row([".": 4]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax"]))
    #expect(biased.tokens == [" call", "yx", "."].map(Self.id))
    #expect(biased.takeBacks == 2)
  }

  @Test func aPhraseTheModelStartedItselfIsNotTakenBack() {
    let rows = [
      Self.row([" k": 3, " call": 1]),
      Self.row(["yx": 9, "all": 1]),
      Self.row([".": 4]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax"]))
    #expect(biased.tokens == [" k", "yx", "."].map(Self.id))
    #expect(biased.takeBacks == 0)
  }

  @Test func aPhraseTheModelBeganWithAShortTokenIsSpelledAgainFurther() {
    // The model writes " s" itself (the start of " siobhan"), then leaves the name: going back,
    // " sio" wins with the bonus, and the name is spelled on.
    let rows = [
      Self.row([" s": 3, " sio": 1.5]),
      Self.row(["yx": 9, "bhan": 5]),
      Self.row([".": 4]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Siobhan"]))
    #expect(biased.tokens == [" sio", "bhan", "."].map(Self.id))
    #expect(biased.takeBacks == 1)
    // When " sio" cannot win even so, the model's own words stay.
    let far = Self.decode(
      [Self.row([" s": 3, " sio": -3]), Self.row(["yx": 9, "bhan": 5]), Self.row([".": 4])],
      hotwords: Self.hotwords(["Siobhan"]))
    #expect(far.tokens == [" s", "yx", "."].map(Self.id))
    #expect(far.takeBacks == 0)
    // Nor when no other start spells further than the phrase abandoned got: " s" and "bh" are
    // 4 bytes of " sbhan", as many as " sio" is of " siobhan".
    let same = Self.decode(
      [
        Self.row([" s": 3, " sio": 1.5]), Self.row(["bh": 9]), Self.row(["yx": 9]),
        Self.row([".": 4]),
      ],
      hotwords: Self.hotwords(["Siobhan", "Sbhan"]))
    #expect(same.tokens == [" s", "bh", "yx", "."].map(Self.id))
    #expect(same.takeBacks == 0)
  }

  @Test func aPhraseTheModelBeganRightAfterOneEndedIsNotSpelledAgain() {
    // No phrase starts with the bonus right after one ended, so going back to " s" there
    // would only make " sio" win where the bonus may not start a phrase.
    let rows = [
      Self.row([" k": 3]), Self.row(["all": 3]), Self.row(["ax": 3]),
      Self.row([" s": 3, " sio": 1.5]), Self.row(["yx": 9, "bhan": 5]), Self.row([".": 4]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax", "Siobhan"]))
    #expect(biased.tokens == [" k", "all", "ax", " s", "yx", "."].map(Self.id))
    #expect(biased.takeBacks == 0)
  }

  @Test func aWholePhraseStaysWhenTheNextWordIsTheModelsOwn() {
    let rows = [
      Self.row([" the": 3]),
      Self.row([" call": 3, " k": 1]),
      Self.row(["all": 3]),
      Self.row(["ax": 3]),
      Self.row([" lamp": 9, " k": 1]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax", "lamp"]))
    #expect(biased.tokens == [" the", " k", "all", "ax", " lamp"].map(Self.id))
    #expect(biased.takeBacks == 0)
  }

  @Test func aPhraseTheModelFindsTooUnlikelyAsAWholeIsTakenBack() {
    // Each token is within the boost of the model's choice, but together they are 8 below it,
    // more than 1.5 boosts of 5.
    let rows = [
      Self.row([" call": 3, " k": 0]),
      Self.row(["yx": 3, "all": 0]),
      Self.row(["ax": 2, ".": 4]),
      Self.row([".": 4]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax"]))
    #expect(biased.tokens.first == Self.id(" call"))
    #expect(!biased.tokens.contains(Self.id(" k")))
    #expect(biased.takeBacks >= 1)
  }

  @Test func theEndOfTheTextStaysTheModelsChoice() {
    var cursor = HotwordCursor(Self.hotwords(["Kallax"]))
    var row = Self.row([" k": 2])
    row[Int(MoonshineTokenizer.endOfText)] = 3
    let choice = row.withUnsafeBufferPointer {
      cursor.choose($0.baseAddress!, count: Self.count, position: 4)
    }
    #expect(choice.token == MoonshineTokenizer.endOfText)
  }

  @Test func aTextEndsAgainstWordsWhenTheEndIsLikeliestButWordsAreLikelierTogether() {
    let end = Int(MoonshineTokenizer.endOfText)
    func endsAgainstWords(_ row: [Float]) -> Bool {
      row.withUnsafeBufferPointer {
        MoonshineModel.Decoding.endsAgainstWords($0.baseAddress!, count: Self.count)
      }
    }
    // The end is the single likeliest token (0.35), the words together likelier.
    var spread = Self.row([" call": 2.6, " the": 2.5, " k": 2.5])
    spread[end] = 3
    #expect(endsAgainstWords(spread))
    // Noise: the end holds most of the probability (0.57 here).
    var sure = Self.row([" call": 2, " the": 2])
    sure[end] = 3
    #expect(!endsAgainstWords(sure))
    // A word is the likeliest: the text does not end.
    var word = Self.row([" call": 4, " the": 2.5])
    word[end] = 3
    #expect(!endsAgainstWords(word))
  }

  @Test func noPhraseStartsWithTheBonusRightAfterOneEnded() {
    let rows = [
      Self.row([" k": 3]),
      Self.row(["all": 3]),
      Self.row(["ax": 3]),
      Self.row([" the": 3, " k": 1]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax"]))
    #expect(biased.tokens == [" k", "all", "ax", " the"].map(Self.id))
    // The same row after another word does start the phrase.
    let later = Self.decode(
      [Self.row([" the": 3]), Self.row([" the": 3, " k": 1])],
      hotwords: Self.hotwords(["Kallax"]))
    #expect(later.tokens == [" the", " k"].map(Self.id))
  }

  @Test func aPhraseThatIsTheStartOfALongerWordIsTakenBack() {
    // "Kallax" spelled with the bonus's help, then the model goes on with the word: "Kallaxyx".
    let rows = [
      Self.row([" call": 3, " k": 1]),
      Self.row(["all": 3]),
      Self.row(["ax": 3]),
      Self.row(["yx": 9, ".": 1]),
      Self.row([".": 4]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax"], boost: 2.5))
    #expect(biased.tokens.first == Self.id(" call"))
    #expect(biased.takeBacks >= 1)
    // Punctuation after it ends the word: the phrase stays.
    let ended = Self.decode(
      [
        Self.row([" call": 3, " k": 1]), Self.row(["all": 3]), Self.row(["ax": 3]),
        Self.row([".": 9]),
      ],
      hotwords: Self.hotwords(["Kallax"], boost: 2.5))
    #expect(ended.tokens == [" k", "all", "ax", "."].map(Self.id))
    #expect(ended.takeBacks == 0)
  }

  @Test func theProbabilityIsTheModelsOwn() {
    var cursor = HotwordCursor(Self.hotwords(["Kallax"]))
    let row = Self.row([" call": 3, " k": 1])
    let choice = row.withUnsafeBufferPointer {
      cursor.choose($0.baseAddress!, count: Self.count, position: 0)
    }
    #expect(choice.token == Self.id(" k"))
    let sum = row.reduce(Float(0)) { $0 + expf($1 - 3) }
    #expect(abs(choice.probability - expf(1 - 3) / sum) < 1e-6)
  }

  @Test func aLowBoostLeavesTheModelsChoice() {
    let rows = [
      Self.row([" call": 3, " k": 1]),
      Self.row(["yx": 3, "all": 1]),
    ]
    let biased = Self.decode(rows, hotwords: Self.hotwords(["Kallax"], boost: 1.5))
    #expect(biased.tokens == [" call", "yx"].map(Self.id))
  }
}
