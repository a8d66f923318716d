import SpeechClient
import Testing
import TranscriptFormats

@Suite struct SubtitleCueTests {
  func word(_ text: String, _ start: Double, duration: Double = 0.5) -> TranscriptionSegment {
    TranscriptionSegment(substring: text, timestamp: start, duration: duration, confidence: 0.9)
  }

  @Test func aWordLongerThanALineGetsACueOfItsOwn() {
    let long = String(repeating: "x", count: 50)
    let cues = SubtitleCue.cues(for: [word("a", 0), word(long, 1), word("b", 2)])
    #expect(cues.map(\.lines) == [["a"], [long], ["b"]])
  }

  @Test func aCueEndsBeforeItWouldLastLongerThanSevenSeconds() {
    let words = (0..<10).map { word("w\($0)", Double($0)) }
    let cues = SubtitleCue.cues(for: words)
    #expect(cues.count == 2)
    #expect(cues[0].start == 0)
    #expect(cues[0].end == 6.5)
    #expect(cues[1].start == 7)
    #expect(cues.allSatisfy { $0.end - $0.start <= SubtitleCue.maximumDuration })
  }

  @Test func wordsWrapIntoAtMostTwoLinesOfFortyTwoCharacters() {
    let words = Array(repeating: "abcdefghi", count: 8)
    #expect(
      SubtitleCue.lines(for: words) == [
        words[0..<4].joined(separator: " "), words[4..<8].joined(separator: " "),
      ])
    #expect(SubtitleCue.lines(for: words + ["abcdefghi"]) == nil)
  }
}
