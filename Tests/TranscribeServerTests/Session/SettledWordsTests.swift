import Testing

@testable import TranscribeServer

/// Which partial words may stream out (Wyoming's chunks, Realtime's deltas): the decoder is
/// sure or two looks agree, another word follows, no loop; finished words always.
struct SettledWordsTests {
  static func words(_ text: String) -> [String] {
    text.split(separator: " ").map(String.init)
  }

  /// Settles each hypothesis in turn and returns the settled words after each.
  static func settle(_ hypotheses: [String], finished: Int = 0) -> [String] {
    var settled = SettledWords()
    return hypotheses.map { text in
      let words = Self.words(text)
      return words.prefix(settled.settle(words, finished: finished)).joined(separator: " ")
    }
  }

  @Test func aWordSettlesOnceTwoLooksAgreeAndAnotherWordFollows() {
    #expect(
      Self.settle(["go", "go for", "go forward", "go forward ten"]) == [
        "", "go", "go", "go forward",
      ])
  }

  @Test func theSameWordsReportedAgainAreNotASecondLook() {
    // The recognizer reports its hypothesis again as the decoder moves on: one look still.
    #expect(Self.settle(["M, m, m,", "M, m, m,", "M, m, m,"]) == ["", "", ""])
    #expect(Self.settle(["go for", "go for", "go forward ten"]) == ["", "", "go"])
  }

  @Test func caseAndPunctuationDoNotMakeWordsDiffer() {
    #expect(Self.settle(["He was not.", "he, was not an"]) == ["", "he, was not"])
  }

  @Test func aLoopIsReadUpToTheEndOfItsFirstCopy() {
    #expect(SettledWords.lengthBeforeRepeat(Self.words("And Mr. John John, John, John,")) == 3)
    #expect(SettledWords.lengthBeforeRepeat(Self.words("Go for it. Go for it.")) == 3)
    #expect(
      SettledWords.lengthBeforeRepeat(Self.words("leisure to consciences, to consciences, and"))
        == 3)
    #expect(SettledWords.lengthBeforeRepeat(Self.words("go forward ten meters")) == 4)
    #expect(SettledWords.lengthBeforeRepeat([]) == 0)
    // The copy is the newest word: the words before it settle, it does not.
    #expect(
      Self.settle(["And Mr. John John, John,", "And Mr. John John, John, John,"]) == [
        "", "And Mr.",
      ])
  }

  @Test func aRevisedWordStopsTheWordsAfterItUntilTwoLooksAgreeAgain() {
    #expect(
      Self.settle(["so far", "so far away", "go forward ten", "go forward ten meters"]) == [
        "", "so far", "", "go forward ten",
      ])
  }

  @Test func wordsOfFinishedUtterancesAreSettledWhateverTheLooks() {
    #expect(
      Self.settle(["stop here", "stop here now"], finished: 2) == ["stop here", "stop here"])
    var settled = SettledWords()
    #expect(settled.settle(["stop"], finished: 1) == 1)
    settled.reset()
    #expect(settled == SettledWords())
  }

  /// Settles each look of `(word, probability)` pairs in turn.
  static func settle(_ looks: [[(String, Double)]]) -> [String] {
    var settled = SettledWords()
    return looks.map { look in
      let words = look.map { SettledWords.Word($0.0, probability: $0.1) }
      return words.prefix(settled.settle(words, finished: 0)).map(\.text).joined(separator: " ")
    }
  }

  @Test func aWordTheDecoderIsSureOfNeedsNoSecondLook() {
    // Moonshine's looks at goforward.raw: unsure first looks, then "Go" at 95 %.
    #expect(
      Self.settle([
        [("So", 0.30)],
        [("Don't.", 0.15)],
        [("Go", 0.95), ("for", 0.71), ("it", 0.73)],
        [("Go", 0.97), ("forward", 0.93), ("go", 0.28)],
        [("Go", 0.97), ("forward", 0.98), ("10", 0.99)],
      ]) == ["", "", "Go", "Go", "Go forward"])
    // 93 % is not sure enough for one look, and not a second look at "forward" either.
    #expect(
      Self.settle([[("Go", 0.97), ("for", 0.71)], [("Go", 0.97), ("forward", 0.93), ("10", 1)]])
        == ["Go", "Go"])
    // The newest word waits for another, however sure.
    #expect(Self.settle([[("Go", 0.99)]]) == [""])
  }

  @Test func twoLooksAgreeingOnAnUnlikelyWordDoNotSettleIt() {
    // Moonshine's looks at a LibriVox clip: "Addie" twice, each time unsure, for "Had".
    #expect(
      Self.settle([
        [("Addie", 0.24), ("Mary,", 0.6)],
        [("Addie", 0.30), ("he", 1.0), ("married", 0.98)],
        [("Had", 0.44), ("he", 1.0), ("married", 0.98), ("to", 0.47)],
        [("Had", 0.55), ("he", 1.0), ("married", 0.97), ("a", 0.63), ("more", 0.93)],
      ]) == ["", "", "", "Had he married"])
  }
}
