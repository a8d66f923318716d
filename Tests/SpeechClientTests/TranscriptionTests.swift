import Foundation
import SpeechClient
import Testing

@Suite struct TranscriptionTests {
  func words(_ text: String, from start: Double = 0) -> [TranscriptionSegment] {
    text.split(separator: " ").enumerated().map { index, word in
      TranscriptionSegment(
        substring: String(word), timestamp: start + Double(index), duration: 1, confidence: 1)
    }
  }

  @Test func formattedStringIsTheFinishedUtterancesThenThePartialWords() {
    var builder = TranscriptionBuilder()
    #expect(builder.transcription.formattedString == "")
    builder.partialSegments = words("go")
    #expect(builder.transcription.formattedString == "go")
    builder.appendUtterance(words("go forward"))
    builder.partialSegments = words("ten", from: 3)
    let transcription = builder.transcription
    #expect(transcription.formattedString == "go forward ten")
    #expect(transcription.finishedUtterances.map { $0.map(\.substring) } == [["go", "forward"]])
    #expect(transcription.partialSegments.map(\.substring) == ["ten"])
    #expect(transcription.segments.map(\.endsUtterance) == [false, true, false])
  }

  @Test func everyWordsRangeFindsItInTheText() {
    var builder = TranscriptionBuilder()
    builder.appendUtterance(words("größe über"))
    builder.appendUtterance(words("naïve café"))
    builder.partialSegments = words("日本 ok")
    let transcription = builder.transcription
    let text = transcription.formattedString as NSString
    for segment in transcription.segments {
      let range = NSRange(
        location: segment.substringRange.location, length: segment.substringRange.length)
      #expect(text.substring(with: range) == segment.substring)
    }
  }

  @Test func anEarlierResultNeverChangesWhenTheTranscriptGrows() {
    var builder = TranscriptionBuilder()
    builder.appendUtterance(words("one"))
    let earlier = builder.transcription
    builder.appendUtterance(words("two"))
    builder.partialSegments = words("three")
    #expect(earlier.formattedString == "one")
    #expect(earlier.finishedUtterances.count == 1)
    #expect(earlier.segments.count == 1)
    #expect(builder.transcription.formattedString == "one two three")
  }

  @Test func aBuilderThatKeepsTheLatestForgetsOlderUtterancesAndKeepsTheirNumbers() {
    var builder = TranscriptionBuilder(keepingLast: 2)
    var snapshots: [Transcription] = []
    for (index, text) in ["größe über.", "one.", "two words.", "three.", "four four."].enumerated()
    {
      builder.appendUtterance(words(text, from: Double(index * 10)))
      snapshots.append(builder.transcription)
    }
    builder.partialSegments = words("five", from: 50)
    let transcription = builder.transcription
    // Five finished, more than twice two: the oldest three went, the last two stay.
    #expect(builder.finishedUtteranceCount == 5)
    #expect(transcription.finishedUtterances.indices == 3..<5)
    // What a host takes next: from where it stopped, past the forgotten ones.
    #expect(transcription.finishedUtterances.indices(from: 1) == 3..<5)
    #expect(transcription.finishedUtterances.indices(from: 4) == 4..<5)
    #expect(transcription.finishedUtterances.indices(from: 9) == 5..<5)
    #expect(transcription.finishedUtterances[3].map(\.substring) == ["three."])
    #expect(transcription.finishedUtterances[4].map(\.substring) == ["four", "four."])
    #expect(transcription.formattedString == "three. four four. five")
    #expect(transcription.segments.map(\.substring) == ["three.", "four", "four.", "five"])
    #expect(transcription.segments.map(\.timestamp) == [30, 40, 41, 50])
    let text = transcription.formattedString as NSString
    for segment in transcription.segments {
      let range = NSRange(
        location: segment.substringRange.location, length: segment.substringRange.length)
      #expect(text.substring(with: range) == segment.substring)
    }
    // Results delivered before keep every word they had.
    #expect(snapshots[3].finishedUtterances.indices == 0..<4)
    #expect(snapshots[3].formattedString == "größe über. one. two words. three.")
    #expect(snapshots[3].finishedUtterances[0].map(\.substring) == ["größe", "über."])
    // A revision replaces the last one kept; numbers go on.
    builder.replaceLastUtterance(words("four four more.", from: 40))
    #expect(builder.transcription.finishedUtterances.indices == 3..<5)
    #expect(builder.transcription.formattedString == "three. four four more.")
    builder.appendUtterance(words("six."))
    #expect(builder.transcription.finishedUtterances.indices == 3..<6)
    #expect(builder.transcription.formattedString == "three. four four more. six.")
    // The same words from a different place in the session are a different transcription.
    var other = TranscriptionBuilder()
    other.appendUtterance(words("three.", from: 30))
    other.appendUtterance(words("four four more.", from: 40))
    other.appendUtterance(words("six."))
    #expect(other.transcription.formattedString == builder.transcription.formattedString)
    #expect(other.transcription != builder.transcription)
  }

  @Test func aBuilderKeepingEveryUtteranceNeverForgets() {
    var builder = TranscriptionBuilder(keepingLast: nil)
    for index in 0..<100 { builder.appendUtterance(words("word\(index).")) }
    #expect(builder.transcription.finishedUtterances.indices == 0..<100)
    #expect(TranscriptionBuilder().keptUtterances == nil)
    // At least one is kept.
    var one = TranscriptionBuilder(keepingLast: 0)
    for index in 0..<3 { one.appendUtterance(words("word\(index).")) }
    #expect(one.transcription.finishedUtterances.indices == 2..<3)
    #expect(one.transcription.formattedString == "word2.")
  }

  @Test func aRevisionReplacesTheLastUtteranceAndEarlierResultsKeepTheirs() {
    var builder = TranscriptionBuilder()
    builder.appendUtterance(words("größe über."))
    builder.appendUtterance(words("he was made."))
    let before = builder.transcription
    builder.partialSegments = words("he was made amiable")
    builder.replaceLastUtterance(words("he was made amiable himself."))
    let after = builder.transcription
    #expect(after.formattedString == "größe über. he was made amiable himself.")
    #expect(
      after.finishedUtterances.map { $0.map(\.substring) }
        == [["größe", "über."], ["he", "was", "made", "amiable", "himself."]])
    #expect(after.partialSegments.isEmpty)
    let text = after.formattedString as NSString
    for segment in after.segments {
      let range = NSRange(
        location: segment.substringRange.location, length: segment.substringRange.length)
      #expect(text.substring(with: range) == segment.substring)
    }
    #expect(before.formattedString == "größe über. he was made.")
    #expect(before.finishedUtterances.count == 2)
    // The builder goes on after a revision; with no utterance yet, a revision is one.
    builder.appendUtterance(words("yes."))
    #expect(
      builder.transcription.formattedString == "größe über. he was made amiable himself. yes.")
    var empty = TranscriptionBuilder()
    empty.replaceLastUtterance(words("hello."))
    #expect(empty.transcription.formattedString == "hello.")
  }

  @Test func aCopiedBuilderThatDivergesKeepsItsOwnWords() {
    var first = TranscriptionBuilder()
    first.appendUtterance(words("shared"))
    var second = first
    first.appendUtterance(words("first"))
    second.appendUtterance(words("second"))
    #expect(first.transcription.formattedString == "shared first")
    #expect(second.transcription.formattedString == "shared second")
    #expect(second.finishedUtteranceCount == 2)
  }

  @Test func transcriptionsWithTheSameWordsAndUtterancesAreEqual() {
    var builder = TranscriptionBuilder()
    builder.appendUtterance(words("go forward"))
    builder.partialSegments = words("ten", from: 2)
    var ended = words("go forward")
    ended[1].endsUtterance = true
    let rebuilt = Transcription(segments: ended + words("ten", from: 2))
    #expect(builder.transcription == rebuilt)
    // The same words split differently are a different transcription.
    #expect(Transcription(segments: words("go forward") + words("ten", from: 2)) != rebuilt)
  }

  @Test func codableRoundTripKeepsTextWordsAndUtterances() throws {
    var builder = TranscriptionBuilder()
    builder.appendUtterance(words("go forward"))
    builder.partialSegments = words("ten", from: 2)
    let result = SpeechRecognitionResult(
      bestTranscription: builder.transcription, isFinal: false,
      progress: RecognitionProgress(audioDuration: 3, totalAudioDuration: 12))
    let data = try JSONEncoder().encode(result)
    #expect(String(decoding: data, as: UTF8.self).contains(#""formattedString":"go forward ten""#))
    let decoded = try JSONDecoder().decode(SpeechRecognitionResult.self, from: data)
    #expect(decoded == result)
    #expect(decoded.progress?.fractionCompleted == 0.25)
  }

  @Test func progressFractionIsUnknownForLiveCaptureAndCappedAtOne() {
    #expect(RecognitionProgress(audioDuration: 5).fractionCompleted == nil)
    #expect(RecognitionProgress(audioDuration: 5, totalAudioDuration: 4).fractionCompleted == 1)
    #expect(RecognitionProgress(audioDuration: 0, totalAudioDuration: 0).fractionCompleted == 1)
  }

  @Test func errorsThatAreNotFailuresBecomeDecoderFailures() {
    struct Unexpected: Error, CustomStringConvertible {
      var description: String { "boom" }
    }
    #expect(SpeechClient.Failure(Unexpected()) == .decoderFailure("boom"))
    #expect(SpeechClient.Failure(SpeechClient.Failure.modelMissing("x")) == .modelMissing("x"))
  }
}
