import Foundation
import Testing

@testable import Moonshine

/// Splitting one transcription into sentences at the pauses where its text ends one.
struct SpokenSentencesTests {
  func split(_ text: String, _ runs: [Range<TimeInterval>]) -> [String] {
    let words = text.split(separator: " ").map(String.init)
    return SpokenSentences.split(words: words, runs: runs).map {
      words[$0.words].joined(separator: " ")
    }
  }

  @Test func sentencesSplitAtThePauseBetweenThem() {
    let parts = split(
      "He was not an ill-disposed young man. Had he married a more amiable woman.",
      [0.3..<2.4, 3.1..<5.2])
    #expect(
      parts == ["He was not an ill-disposed young man.", "Had he married a more amiable woman."])
  }

  @Test func aThinkingPauseInsideASentenceKeepsItWhole() throws {
    let words = "He might even have been made amiable himself.".split(separator: " ").map(
      String.init)
    let parts = SpokenSentences.split(words: words, runs: [0.3..<1.6, 2.4..<3.3])
    try #require(parts.count == 1)
    #expect(parts[0].words == 0..<8)
    // "made" is the last word before the pause, "amiable" the first after it.
    #expect(parts[0].times[5].start + parts[0].times[5].duration <= 1.6 + 1e-9)
    #expect(parts[0].times[6].start >= 2.4)
    #expect(abs(parts[0].times[7].start + parts[0].times[7].duration - 3.3) < 1e-9)
  }

  @Test func aSentenceEndWithoutAPauseDoesNotSplit() {
    #expect(split("Go forward. Then stop.", [0.2..<2.0]) == ["Go forward. Then stop."])
  }

  @Test func onlyTheSentenceEndOfSeveralPausesSplits() {
    // Pauses after "man," (a clause) and after "selfish." (the sentence's end).
    let parts = split(
      "He was not an ill-disposed young man, unless to be rather selfish. Had he married a more amiable woman.",
      [0.3..<2.4, 2.9..<4.6, 5.3..<7.4])
    #expect(
      parts == [
        "He was not an ill-disposed young man, unless to be rather selfish.",
        "Had he married a more amiable woman.",
      ])
  }

  @Test func anAbbreviationOrALowerCaseWordAfterAFullStopDoesNotSplit() {
    #expect(
      split("And Mr. John Dashwood had then leisure.", [0.3..<0.9, 1.5..<3.6]) == [
        "And Mr. John Dashwood had then leisure."
      ])
    #expect(
      split("To be ill-disposed. had he married.", [0.3..<1.6, 2.2..<3.2]) == [
        "To be ill-disposed. had he married."
      ])
  }

  @Test func aBreathTheModelWroteNothingForTakesNoWords() {
    // A short run of noise before the speech, and the sentences after it.
    let parts = SpokenSentences.split(
      words: "Turn it on. Turn it off.".split(separator: " ").map(String.init),
      runs: [0.1..<0.2, 1.0..<1.8, 2.6..<3.4])
    #expect(parts.map(\.words) == [0..<3, 3..<6])
    #expect(parts[0].times[0].start >= 1.0)
    #expect(parts[1].times[0].start >= 2.6)
  }

  @Test func noWordsMakeNoParts() {
    #expect(SpokenSentences.split(words: [], runs: [0..<1]).isEmpty)
    #expect(split("Hello.", []) == ["Hello."])
  }
}
