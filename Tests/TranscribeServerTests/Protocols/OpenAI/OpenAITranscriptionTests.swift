import Foundation
import SpeechClient
import Testing

@testable import TranscribeServer

@Suite struct OpenAITranscriptionTests {
  func word(_ text: String, _ start: Double, confidence: Float = 1) -> TranscriptionSegment {
    TranscriptionSegment(substring: text, timestamp: start, duration: 0.25, confidence: confidence)
  }

  @Test func trailingWordsOfAFinalResultAreTheLastSegment() {
    var builder = TranscriptionBuilder()
    builder.appendUtterance([word("go", 0), word("forward", 0.5)])
    builder.partialSegments = [word("ten", 2)]
    let result = SpeechRecognitionResult(
      bestTranscription: builder.transcription, isFinal: true,
      progress: RecognitionProgress(audioDuration: 2.5, totalAudioDuration: 3))
    let transcription = OpenAITranscription(result)
    #expect(transcription.utterances.map { $0.map(\.substring) } == [["go", "forward"], ["ten"]])
    #expect(transcription.text == "go forward ten")
    #expect(transcription.duration == 3)
  }

  @Test func verboseSegmentsCarryTimesFramesAndTheMeanLogConfidence() {
    let transcription = OpenAITranscription(
      SpeechRecognitionResult(
        bestTranscription: Transcription(segments: [
          word("go", 1.234, confidence: 1), word("on", 1.5, confidence: Float(exp(-1.0))),
        ]),
        isFinal: true))
    let verbose = transcription.verbose(granularities: [.segment])
    let segment = try! #require(verbose.segments?.first)
    #expect(segment.id == 0)
    #expect(segment.seek == 123)
    #expect(segment.start == 1.234)
    #expect(segment.end == 1.75)
    #expect(segment.text == "go on")
    #expect(segment.tokens == [])
    #expect(segment.temperature == 0)
    #expect(segment.avgLogprob == -0.5)
    #expect(verbose.words == nil)
    // Without a reported length, the audio lasts until the last word ends.
    #expect(verbose.duration == 1.75)
  }

  @Test func noResultIsAnEmptyTranscript() {
    let transcription = OpenAITranscription(nil)
    #expect(transcription.text == "")
    #expect(transcription.verbose(granularities: [.segment, .word]).segments == [])
  }
}
