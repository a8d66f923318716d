import Architecture
import Clocks
import ConcurrencyExtras
import Foundation
import SpeechClient
import SpeechRecognitionFeature
import Testing

/// A result whose transcript is `text`: partial words, or one finished utterance when final.
func result(
  _ text: String, isFinal: Bool = false, progress: RecognitionProgress? = nil
) -> SpeechRecognitionResult {
  let words = text.split(separator: " ").map(String.init)
  let segments = words.enumerated().map { index, word in
    TranscriptionSegment(
      substring: word, timestamp: Double(index) * 0.5, duration: 0.5, confidence: 0.9,
      endsUtterance: isFinal && index == words.count - 1)
  }
  return SpeechRecognitionResult(
    bestTranscription: Transcription(segments: segments), isFinal: isFinal, progress: progress)
}

/// The demo's stories (TCA's SpeechRecognition case study), told on Linux.
@MainActor
struct SpeechRecognitionTests {
  @Test func deniedAuthorizationStopsRecordingWithAnAlert() async {
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .denied }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse, .denied) {
      $0.isRecording = false
      $0.status = .idle
      $0.alert = .denied
      $0.outcome = .notAuthorized(.denied)
    }
    await store.receive(\.delegate.ended, .notAuthorized(.denied))
  }

  @Test func restrictedAuthorizationStopsRecordingWithItsOwnAlert() async {
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .restricted }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse, .restricted) {
      $0.isRecording = false
      $0.status = .idle
      $0.alert = .restricted
      $0.outcome = .notAuthorized(.restricted)
    }
    await store.receive(\.delegate.ended, .notAuthorized(.restricted))
    await store.send(.alertDismissed) {
      $0.alert = nil
    }
  }

  @Test func theClientsReasonForNotAuthorizingReachesTheOutcome() async {
    let reason = SpeechClient.Failure.captureSourceMissing("capture source usb does not exist")
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .restricted(reason) }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse) {
      $0.isRecording = false
      $0.status = .idle
      $0.alert = .restricted
      $0.outcome = .notAuthorized(.restricted(reason))
    }
    await store.receive(\.delegate.ended, .notAuthorized(.restricted(reason)))
  }

  @Test func allowedRecordingTranscribesAndStopsAtOnceWhileTheLastWordsArrive() async {
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let requests = LockIsolated<[SpeechRecognitionRequest]>([])
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      // The stop deadline's clock; the last words arrive long before it.
      $0.continuousClock = TestClock()
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
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse, .authorized) {
      $0.status = .starting
    }
    await store.receive(\.recognitionStarted) {
      $0.status = .recording
    }

    continuation.yield(result("go forward"))
    await store.receive(\.speech.success) {
      $0.result = result("go forward")
    }
    await store.receive(\.delegate.heard)
    #expect(store.state.transcribedText == "go forward")
    continuation.yield(result("go forward ten"))
    await store.receive(\.speech.success) {
      $0.result = result("go forward ten")
    }
    await store.receive(\.delegate.heard)

    // Stopping turns recording off at once; the status shows the last words are coming.
    await store.send(.recordButtonTapped) {
      $0.isRecording = false
      $0.status = .finishing
    }
    await store.receive(\.speech.success) {
      $0.result = result("go forward ten meters", isFinal: true)
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.recognitionFinished) {
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
    #expect(store.state.transcribedText == "go forward ten meters")
    #expect(requests.value == [SpeechRecognitionRequest()])
  }

  @Test func audioDeviceFailureShowsTheAudioDeviceAlertAndKeepsTheWords() async {
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
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse, .authorized) {
      $0.status = .starting
    }
    await store.receive(\.recognitionStarted) {
      $0.status = .recording
    }
    await store.receive(\.speech.success) {
      $0.result = result("go")
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.speech.failure, .audioDeviceFailed("Connection terminated")) {
      $0.isRecording = false
      $0.status = .idle
      $0.failure = .audioDeviceFailed("Connection terminated")
      $0.alert = .audioDeviceProblem
      $0.outcome = .failed(.audioDeviceFailed("Connection terminated"))
    }
    await store.receive(\.delegate.ended)
    #expect(store.state.transcribedText == "go")
  }

  @Test func recognitionFailureShowsTheTranscriptionAlert() async {
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
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse, .authorized) {
      $0.status = .starting
    }
    await store.receive(\.recognitionStarted) {
      $0.status = .recording
    }
    await store.receive(\.speech.failure, .modelMissing("en-us")) {
      $0.isRecording = false
      $0.status = .idle
      $0.failure = .modelMissing("en-us")
      $0.alert = .transcriptionFailed
      $0.outcome = .failed(.modelMissing("en-us"))
    }
    await store.receive(\.delegate.ended)
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
    store.exhaustivity = .off
    await store.send(.recordButtonTapped)
    await store.receive(\.speech.success) {
      $0.result = result("go forward", isFinal: true)
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.speech.failure) {
      $0.isRecording = false
      $0.status = .idle
      $0.outcome = .failed(.audioDeviceFailed("server died"))
    }
    await store.receive(\.delegate.ended)
  }
}
