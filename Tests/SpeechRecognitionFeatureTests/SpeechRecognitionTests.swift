import Architecture
import Clocks
import ConcurrencyExtras
import SpeechClient
import SpeechRecognitionFeature
import Testing

/// A result whose transcript is `text`, one segment per word.
private func result(_ text: String, isFinal: Bool = false) -> SpeechRecognitionResult {
  let words = text.split(separator: " ").map(String.init)
  let segments = words.enumerated().map { index, word in
    TranscriptionSegment(
      substring: word, timestamp: Double(index) * 0.5, duration: 0.5, confidence: 0.9)
  }
  return SpeechRecognitionResult(
    bestTranscription: Transcription(formattedString: text, segments: segments), isFinal: isFinal)
}

@MainActor
@Suite(.serialized) struct SpeechRecognitionTests {
  @Test func deniedAuthorizationStopsRecordingWithAnAlert() async {
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .denied }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .denied) {
      $0.isRecording = false
      $0.alert = .denied
    }
  }

  @Test func restrictedAuthorizationStopsRecordingWithItsOwnAlert() async {
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .restricted }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .restricted) {
      $0.isRecording = false
      $0.alert = .restricted
    }
    await store.send(.alertDismissed) {
      $0.alert = nil
    }
  }

  @Test func authorizedRecordingTranscribesUntilStopped() async {
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let requests = LockIsolated<[SpeechRecognitionRequest]>([])
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { request in
        requests.withValue { $0.append(request) }
        return stream
      }
      $0.speechClient.finishTask = {
        continuation.yield(result("go forward ten meters", isFinal: true))
        continuation.finish()
      }
    }

    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .authorized)

    continuation.yield(result("go forward"))
    await store.receive(\.speech.success) {
      $0.transcribedText = "go forward"
      $0.result = result("go forward")
    }
    continuation.yield(result("go forward ten"))
    await store.receive(\.speech.success) {
      $0.transcribedText = "go forward ten"
      $0.result = result("go forward ten")
    }

    await store.send(.recordButtonTapped)
    await store.receive(\.speech.success) {
      $0.transcribedText = "go forward ten meters"
      $0.result = result("go forward ten meters", isFinal: true)
    }
    await store.receive(\.recognitionFinished) {
      $0.isRecording = false
    }
    await store.finish()
    #expect(requests.value == [SpeechRecognitionRequest()])
  }

  @Test func audioDeviceFailureShowsTheAudioDeviceAlert() async {
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in
        AsyncThrowingStream {
          $0.yield(result("go"))
          $0.finish(throwing: SpeechClient.Failure.audioDeviceFailed("Connection terminated"))
        }
      }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .authorized)
    await store.receive(\.speech.success) {
      $0.transcribedText = "go"
      $0.result = result("go")
    }
    await store.receive(\.speech.failure, .audioDeviceFailed("Connection terminated")) {
      $0.isRecording = false
      $0.failure = .audioDeviceFailed("Connection terminated")
      $0.alert = .audioDeviceProblem
      // The words heard before the failure are kept.
      #expect($0.transcribedText == "go")
    }
  }

  @Test func failureAfterTheFinalWordsStillEndsWithTheFailure() async {
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in
        AsyncThrowingStream {
          $0.yield(result("go forward", isFinal: true))
          $0.finish(throwing: SpeechClient.Failure.audioDeviceFailed("server died"))
        }
      }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .authorized)
    await store.receive(\.speech.success) {
      $0.transcribedText = "go forward"
      $0.result = result("go forward", isFinal: true)
    }
    await store.receive(\.speech.failure, .audioDeviceFailed("server died")) {
      $0.isRecording = false
      $0.failure = .audioDeviceFailed("server died")
      $0.alert = .audioDeviceProblem
    }
  }

  @Test func otherFailureShowsTheTranscriptionAlert() async {
    struct Unexpected: Error {}
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in
        AsyncThrowingStream { $0.finish(throwing: SpeechClient.Failure.modelMissing("en-us")) }
      }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .authorized)
    await store.receive(\.speech.failure, .modelMissing("en-us")) {
      $0.isRecording = false
      $0.failure = .modelMissing("en-us")
      $0.alert = .transcriptionFailed
    }
  }

  @Test func errorsThatAreNotFailuresBecomeDecoderFailures() {
    struct Unexpected: Error, CustomStringConvertible {
      var description: String { "boom" }
    }
    #expect(SpeechClient.Failure(Unexpected()) == .decoderFailure("boom"))
    #expect(SpeechClient.Failure(SpeechClient.Failure.modelMissing("x")) == .modelMissing("x"))
  }

  @Test func startingTwiceNeverRunsTwoTasks() async {
    let terminations = LockIsolated<[Int]>([])
    let starts = LockIsolated(0)
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in
        let number = starts.withValue {
          $0 += 1
          return $0
        }
        return AsyncThrowingStream { continuation in
          continuation.onTermination = { _ in terminations.withValue { $0.append(number) } }
        }
      }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .authorized)
    // A second authorization (a second start) replaces the running task.
    await store.send(.authorizationResponse(.authorized))
    #expect(starts.value == 2)
    #expect(terminations.value == [1])
    await store.skipInFlightEffects()
  }

  @Test func loremClientStreamsWordsAtItsCadenceAndEndsFinal() async {
    let clock = TestClock()
    let random = { WithRandomNumberGenerator(SeededRandomNumberGenerator(seed: 3)) }
    let delays = {
      let generator = random()
      return SpeechClient.loremWords.prefix(2).map {
        SpeechClient.loremDelay(for: $0, random: generator)
      }
    }()
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient = .lorem()
      $0.continuousClock = clock
      $0.withRandomNumberGenerator = random()
    }

    // The results carry timings; this story checks the transcript, then the segments.
    store.exhaustivity = .off
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.authorizationResponse, .authorized)
    await clock.advance(by: delays[0] - .milliseconds(1))
    #expect(store.state.transcribedText == "")
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.speech.success) {
      $0.transcribedText = "lorem"
    }
    await clock.advance(by: delays[1])
    await store.receive(\.speech.success) {
      $0.transcribedText = "lorem ipsum"
    }
    let segments = store.state.result?.bestTranscription.segments ?? []
    #expect(segments.map(\.substring) == ["lorem", "ipsum"])
    #expect(segments.map(\.timestamp) == [0, delays[0].inSeconds])
    #expect(segments.map(\.duration) == [delays[0].inSeconds, delays[1].inSeconds])

    await store.send(.recordButtonTapped)
    await store.receive(\.speech.success)
    #expect(store.state.result?.isFinal == true)
    await store.receive(\.recognitionFinished) {
      $0.isRecording = false
    }
    #expect(store.state.transcribedText == "lorem ipsum")
    await store.finish()
  }
}

extension Duration {
  fileprivate var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
