import Clocks
import ConcurrencyExtras
import Dependencies
import Foundation
import SpeechClient
import Testing

@Suite(.serialized) struct LoremTests {
  /// The delays the lorem client will use for its first words with generator seed 7.
  func expectedDelays(_ count: Int) -> [Duration] {
    let random = WithRandomNumberGenerator(SeededRandomNumberGenerator(seed: 7))
    return SpeechClient.loremWords.prefix(count).map {
      SpeechClient.loremDelay(for: $0, random: random)
    }
  }

  @Test func delayIsFiftyMillisecondsPerLetterPlusUpToTwoHundred() {
    let random = WithRandomNumberGenerator(SeededRandomNumberGenerator(seed: 1))
    for _ in 0..<200 {
      let delay = SpeechClient.loremDelay(for: "lorem", random: random)
      #expect(delay >= .milliseconds(250))
      #expect(delay <= .milliseconds(450))
    }
  }

  @Test func speaksWordByWordAtItsCadenceAndEndsWithAFinalResult() async throws {
    try await withMainSerialExecutor {
      let clock = TestClock()
      let delays = expectedDelays(2)
      let client = SpeechClient.lorem()
      let results = LockIsolated<[SpeechRecognitionResult]>([])
      let stream = await withDependencies {
        $0.continuousClock = clock
        $0.withRandomNumberGenerator = WithRandomNumberGenerator(
          SeededRandomNumberGenerator(seed: 7))
      } operation: {
        await client.startTask(SpeechRecognitionRequest())
      }
      let consumer = Task {
        for try await result in stream {
          results.withValue { $0.append(result) }
        }
      }

      // Nothing until the first word's delay has passed.
      await clock.advance(by: delays[0] - .milliseconds(1))
      #expect(results.value.isEmpty)
      await clock.advance(by: .milliseconds(1))
      #expect(results.value.map(\.bestTranscription.formattedString) == ["lorem"])

      await clock.advance(by: delays[1])
      #expect(
        results.value.map(\.bestTranscription.formattedString) == ["lorem", "lorem ipsum"])
      let segments = try #require(results.value.last).bestTranscription.segments
      #expect(segments.map(\.substring) == ["lorem", "ipsum"])
      #expect(segments[0].timestamp == 0)
      #expect(
        abs(
          segments[1].timestamp - Double(delays[0].components.attoseconds) / 1e18
            - Double(delays[0].components.seconds)) < 1e-9)
      #expect(segments[1].substringRange == .init(location: 6, length: 5))
      #expect(results.value.allSatisfy { !$0.isFinal })

      await client.finishTask()
      try await consumer.value
      let final = try #require(results.value.last)
      #expect(final.isFinal)
      #expect(final.bestTranscription.formattedString == "lorem ipsum")
      #expect(results.value.count == 3)
    }
  }

  @Test func aFileHoldsOneUtteranceAndThenEnds() async throws {
    try await withMainSerialExecutor {
      let clock = TestClock()
      let delays = expectedDelays(SpeechClient.loremUtteranceLength)
      let client = SpeechClient.lorem()
      let request = SpeechRecognitionRequest(
        source: .file(URL(fileURLWithPath: "/nonexistent/upload.wav")))
      let stream = await withDependencies {
        $0.continuousClock = clock
        $0.withRandomNumberGenerator = WithRandomNumberGenerator(
          SeededRandomNumberGenerator(seed: 7))
      } operation: {
        await client.startTask(request)
      }
      let consumer = Task {
        var results: [SpeechRecognitionResult] = []
        for try await result in stream { results.append(result) }
        return results
      }
      // One word short of the utterance: still going.
      await clock.advance(by: delays.dropLast().reduce(.zero, +))
      await clock.advance(by: delays.last! - .milliseconds(1))
      await clock.advance(by: .milliseconds(1))
      let results = try await consumer.value
      let final = try #require(results.last)
      #expect(final.isFinal)
      #expect(
        final.bestTranscription.formattedString
          == SpeechClient.loremWords.prefix(SpeechClient.loremUtteranceLength).joined(
            separator: " "))
      #expect(final.bestTranscription.segments.last?.endsUtterance == true)
      #expect(results.dropLast().allSatisfy { !$0.isFinal })
    }
  }

  @Test func startingANewTaskNeverStopsItself() async throws {
    try await withMainSerialExecutor {
      let clock = TestClock()
      let client = SpeechClient.lorem()
      let (first, second) = await withDependencies {
        $0.continuousClock = clock
        $0.withRandomNumberGenerator = WithRandomNumberGenerator(
          SeededRandomNumberGenerator(seed: 7))
      } operation: {
        (
          await client.startTask(SpeechRecognitionRequest()),
          await client.startTask(SpeechRecognitionRequest())
        )
      }
      // Starting the second task ended the first stream, without a word.
      var firstCount = 0
      for try await _ in first { firstCount += 1 }
      #expect(firstCount == 0)
      // Let the first stream's end run its handler; it must leave the second task alone.
      for _ in 0..<20 { await Task.yield() }

      var results = second.makeAsyncIterator()
      // The first word comes within 450 ms; the second needs at least 250 ms more.
      await clock.advance(by: .milliseconds(450))
      let heard = try await results.next()
      #expect(heard?.bestTranscription.formattedString == "lorem")
      await client.finishTask()
      #expect(try await results.next()?.isFinal == true)
      #expect(try await results.next() == nil)
    }
  }

  @Test func previewListsOneLoremCaptureDevice() async throws {
    let devices = try await SpeechClient.previewValue.captureDevices()
    #expect(
      devices == [
        CaptureDevice(name: "lorem", description: "Lorem ipsum (preview)", isDefault: true)
      ])
  }

  @Test func previewValueIsTheLoremClientAndIsAuthorized() async {
    await withDependencies {
      $0.context = .preview
    } operation: {
      @Dependency(\.speechClient) var speechClient
      #expect(await speechClient.requestAuthorization() == .authorized)
    }
  }

  @Test func testValueFailsNamingTheEndpoint() async {
    @Dependency(\.speechClient) var speechClient
    await withKnownIssue {
      _ = await speechClient.requestAuthorization()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("SpeechClient.requestAuthorization")
    }
    await withKnownIssue {
      await speechClient.finishTask()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("SpeechClient.finishTask")
    }
  }
}
