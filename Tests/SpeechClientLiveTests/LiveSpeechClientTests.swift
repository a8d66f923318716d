import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

extension LiveTests {
  @Suite(.enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
  struct LiveSpeechClientTests {
    /// goforward five times with 2 s gaps: about 24 s of audio, several seconds to decode.
    static func longFile(in directory: TemporaryDirectory) throws -> URL {
      let url = directory.file("long.wav")
      try soxConvertGoForward(to: url, effects: ["pad", "0", "2", "repeat", "4"])
      return url
    }

    @Test func finishTaskStopsAFileEarlyAndDeliversTheWordsSoFarAsFinal() async throws {
      let directory = try TemporaryDirectory()
      let client = SpeechClient.live()
      let stream = await client.startTask(
        SpeechRecognitionRequest(source: .file(try Self.longFile(in: directory))))
      var results: [SpeechRecognitionResult] = []
      var finishing: Task<Void, Never>?
      for try await result in stream {
        results.append(result)
        if finishing == nil, result.bestTranscription.formattedString.hasPrefix("go forward") {
          finishing = Task { await client.finishTask() }
        }
      }
      await finishing?.value
      let last = try #require(results.last)
      #expect(last.isFinal)
      #expect(results.filter(\.isFinal).count == 1)
      #expect(last.bestTranscription.formattedString.hasPrefix("go forward"))
      #expect(last.bestTranscription.segments.count < 20)
    }

    @Test func startingATaskStopsTheOneBefore() async throws {
      let directory = try TemporaryDirectory()
      let client = SpeechClient.live()
      let first = await client.startTask(
        SpeechRecognitionRequest(source: .file(try Self.longFile(in: directory))))
      let second = await client.startTask(
        SpeechRecognitionRequest(source: .rawFile(TestData.goForward)))
      async let firstOutcome = collect(first)
      async let secondOutcome = collect(second)
      let (stopped, current) = await (firstOutcome, secondOutcome)
      #expect(stopped.error == nil)
      #expect(stopped.last?.isFinal == true)
      #expect((stopped.last?.bestTranscription.segments.count ?? 0) < 20)
      #expect(current.text == "go forward ten meters")
    }

    @Test func cancellingTheConsumerStopsDecodingAFile() async throws {
      let directory = try TemporaryDirectory()
      let (task, stream) = RecognitionTask.start(
        SpeechRecognitionRequest(source: .file(try Self.longFile(in: directory))),
        configuration: LiveSpeechConfiguration())
      let firstResult = AsyncStream.makeStream(of: Void.self)
      let consumer = Task {
        for try await _ in stream { firstResult.continuation.yield() }
      }
      for await _ in firstResult.stream { break }
      consumer.cancel()
      // Nothing but the cancellation stops the task; decoding the whole file takes seconds.
      #expect(await finishes(task, within: .seconds(0.5)))
    }

    @Test func finishTaskWithoutATaskReturns() async {
      await SpeechClient.live().finishTask()
    }

    @Test func requestAuthorizationChecksTheConfiguredRequest() async {
      // No audio server: the microphone is restricted, a file needs none.
      let nowhere = LiveSpeechConfiguration(server: NoAudioServerTests.nowhere)
      #expect(await SpeechClient.live(nowhere).requestAuthorization().status == .restricted)
      var forFile = nowhere
      forFile.authorizationRequest = SpeechRecognitionRequest(source: .rawFile(TestData.goForward))
      #expect(await SpeechClient.live(forFile).requestAuthorization() == .authorized)
    }
  }
}
