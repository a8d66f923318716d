import SpeechClient
import Testing
import TranscriptFormats

@Suite struct SubtitleFormatTests {
  func word(_ text: String, _ start: Double, duration: Double = 0.5) -> TranscriptionSegment {
    TranscriptionSegment(substring: text, timestamp: start, duration: duration, confidence: 0.9)
  }

  @Test func srtNumbersCuesAcrossUtterancesAndUsesCommas() {
    let utterances = [[word("go", 0.5), word("forward", 1)], [word("ten", 3661.25)]]
    #expect(
      SubtitleFormat.srt.document(for: utterances)
        == "1\n00:00:00,500 --> 00:00:01,500\ngo forward\n\n"
        + "2\n01:01:01,250 --> 01:01:01,750\nten\n\n")
  }

  @Test func vttStartsWithAHeaderAndUsesDots() {
    let utterances = [[word("hello", 0.5)]]
    #expect(
      SubtitleFormat.vtt.document(for: utterances)
        == "WEBVTT\n\n00:00:00.500 --> 00:00:01.000\nhello\n\n")
  }

  @Test func noWordsGiveOnlyTheHeader() {
    let none: [[TranscriptionSegment]] = []
    #expect(SubtitleFormat.srt.document(for: none) == "")
    #expect(SubtitleFormat.vtt.document(for: none) == "WEBVTT\n\n")
  }

  @Test func timestampsRoundToMillisecondsAndClampNegativeTimesToZero() {
    #expect(SubtitleFormat.srt.timestamp(1.2344) == "00:00:01,234")
    #expect(SubtitleFormat.vtt.timestamp(-3) == "00:00:00.000")
  }
}
