import Foundation
import SpeechClient
import Testing

/// The lorem client with pushed audio: paced by the audio, not the clock, so no clock is needed.
@Suite struct LoremPushedAudioTests {
  @Test func hearsOneWordPerWordDurationOfPushedAudioAndReportsItsPosition() async throws {
    let client = SpeechClient.lorem()
    let audio = PushedAudio(sampleRate: 10_000)
    var results = await client.startTask(SpeechRecognitionRequest(source: .pushed(audio)))
      .makeAsyncIterator()
    // 0.3 s of audio is one word.
    audio.push([Int16](repeating: 0, count: 3_000))
    var result = try #require(try await results.next())
    while result.progress?.audioDuration != 0.3 { result = try #require(try await results.next()) }
    #expect(result.bestTranscription.formattedString == "lorem")
    let word = try #require(result.bestTranscription.segments.first)
    #expect(word.timestamp == 0)
    #expect(word.duration == 0.3)
    #expect(!result.isFinal)
  }

  @Test func endsAnUtteranceEveryEightWordsAndFinishesWhenTheAudioDoes() async throws {
    let client = SpeechClient.lorem()
    let audio = PushedAudio(sampleRate: 1_000)
    let stream = await client.startTask(SpeechRecognitionRequest(source: .pushed(audio)))
    // Ten words' worth, then the end.
    audio.push([Int16](repeating: 0, count: 3_000))
    audio.finish()
    var last: SpeechRecognitionResult?
    for try await result in stream { last = result }
    let final = try #require(last)
    #expect(final.isFinal)
    let utterances = final.bestTranscription.finishedUtterances.map {
      $0.map(\.substring).joined(separator: " ")
    }
    #expect(
      utterances == [
        "lorem ipsum dolor sit amet consectetur adipiscing elit", "sed do",
      ])
    #expect(final.progress?.audioDuration == 3)
  }

  @Test func finishTaskStillHearsWhatWasPushedBefore() async throws {
    let client = SpeechClient.lorem()
    let audio = PushedAudio(sampleRate: 1_000)
    let stream = await client.startTask(SpeechRecognitionRequest(source: .pushed(audio)))
    audio.push([Int16](repeating: 0, count: 600))
    await client.finishTask()
    #expect(audio.isFinished)
    var last: SpeechRecognitionResult?
    for try await result in stream { last = result }
    #expect(last?.isFinal == true)
    #expect(last?.bestTranscription.formattedString == "lorem ipsum")
  }
}
