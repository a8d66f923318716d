import Foundation
import Moonshine
import Testing

@testable import Whisper

@Suite struct ShortenedPausesTests {
  /// `seconds` of a 200 Hz tone at `level` dBFS (RMS): something louder than a pause.
  static func tone(seconds: Double, level: Float) -> [Float] {
    let amplitude = Float(pow(10, Double(level) / 20)) * 2.0.squareRoot().float
    return (0..<Int(seconds * 16_000)).map {
      amplitude * Float(sin(2 * Double.pi * 200 * Double($0) / 16_000))
    }
  }

  static func silence(seconds: Double) -> [Float] {
    Array(repeating: 0, count: Int(seconds * 16_000))
  }

  @Test func aLongSilenceKeepsAThirdOfASecondAndTheTimesAfterItMoveBack() {
    let audio =
      Self.tone(seconds: 0.5, level: -20) + Self.silence(seconds: 1.5)
      + Self.tone(seconds: 0.5, level: -20)
    let shortened = audio.withUnsafeBufferPointer { ShortenedPauses($0) }
    #expect(shortened.cuts.count == 1)
    // 0.3 s of the 1.5 s stays, half at each side.
    #expect(shortened.samples.count == audio.count - 19_200)
    #expect(shortened.cuts.first?.at == 8_000 + 2_400)
    #expect(shortened.cuts.first?.removed == 19_200)
    // Before the cut a time is the same; after it, 1.2 s later.
    #expect(shortened.originalTime(of: 0.25) == 0.25)
    #expect(abs(shortened.originalTime(of: 0.9) - 2.1) < 1e-9)
    // What is left is the speech and the pause's edges, in order.
    #expect(Array(shortened.samples.prefix(8_000)) == Array(audio.prefix(8_000)))
    #expect(Array(shortened.samples.suffix(8_000)) == Array(audio.suffix(8_000)))
  }

  @Test func aPauseShorterThanSixTenthsOfASecondStays() {
    let audio =
      Self.tone(seconds: 0.5, level: -20) + Self.silence(seconds: 0.55)
      + Self.tone(seconds: 0.5, level: -20)
    let shortened = audio.withUnsafeBufferPointer { ShortenedPauses($0) }
    #expect(shortened.cuts.isEmpty)
    #expect(shortened.samples == audio)
  }

  /// In a noisy room the quiet between words stands less than 25 dB under the speech: nothing is
  /// taken for a pause to cut.
  @Test func aNoisyRoomsQuietIsNotCut() {
    let audio =
      Self.tone(seconds: 0.5, level: -20) + Self.tone(seconds: 1.5, level: -40)
      + Self.tone(seconds: 0.5, level: -20)
    let shortened = audio.withUnsafeBufferPointer { ShortenedPauses($0) }
    #expect(shortened.cuts.isEmpty)
    #expect(shortened.samples.count == audio.count)
  }

  @Test func twoLongPausesAreBothShortenedAndTimesMoveByWhatWentBeforeThem() {
    let audio =
      Self.tone(seconds: 0.5, level: -20) + Self.silence(seconds: 1)
      + Self.tone(seconds: 0.5, level: -20) + Self.silence(seconds: 2)
      + Self.tone(seconds: 0.5, level: -20)
    let shortened = audio.withUnsafeBufferPointer { ShortenedPauses($0) }
    #expect(shortened.cuts.map(\.removed) == [11_200, 27_200])
    // The last tone starts at 4.0 s in the utterance, at 4.0 − 0.7 − 1.7 = 1.6 s in what
    // Whisper hears.
    #expect(abs(shortened.originalTime(of: 1.6) - 4.0) < 1e-9)
    #expect(abs(shortened.originalTime(of: 0.7) - 1.4) < 1e-9)
  }

  @Test func aSentenceWrittenTwiceInARowIsWrittenOnce() {
    func transcript(_ text: String) -> MoonshineTranscript {
      let words = text.split(separator: " ").map {
        MoonshineTranscript.Word(text: String($0), confidence: 1, tokens: [])
      }
      var transcript = MoonshineTranscript(text: text, words: words)
      transcript.wordTimes = words.indices.map { Double($0)...Double($0) + 0.5 }
      return transcript
    }
    let repeated = WhisperTranscriber.withoutRepeatedSentences(
      transcript(
        "He was not an ill-disposed young man. he was not an ill-disposed young man. Had he?"))
    #expect(repeated.text == "He was not an ill-disposed young man. Had he?")
    // A sentence with "Mr." in it, twice, as Whisper base wrote it in the dictation benchmark.
    let withTitle = "And Mr. John Dashwood had then leisure to consider how much. "
    #expect(
      WhisperTranscriber.withoutRepeatedSentences(transcript(withTitle + withTitle + "He was."))
        .text == withTitle + "He was.")
    // The times go with their words.
    #expect(repeated.wordTimes?.last == 15...15.5)
    // Short sentences may be said twice; a repeat that is not right after stays; so does a
    // sentence followed by more of the same words.
    for text in [
      "Yes, yes. Yes, yes.", "Go forward ten metres. Stop. Go forward ten metres.",
      "Turn the lights off. Turn the lights off now.", "Stop.", "",
    ] {
      #expect(WhisperTranscriber.withoutRepeatedSentences(transcript(text)).text == text)
    }
  }
}

extension Double {
  fileprivate var float: Float { Float(self) }
}
