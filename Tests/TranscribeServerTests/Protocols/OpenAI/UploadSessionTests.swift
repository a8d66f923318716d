import Architecture
import Clocks
import ConcurrencyExtras
import Foundation
import SpeechClient
import SpeechRecognitionFeature
import Testing

@testable import TranscribeServer

/// An upload as a reducer: while its body arrives, the client leaving, a slow body, the time
/// limit and a shutdown end it at once; then it ends with recognition's outcome, when the client
/// leaves, or when its time is up, and in the last two cases the decoding stops at once.
@MainActor
struct UploadSessionTests {
  let clock = TestClock()
  let results = AsyncThrowingStream<SpeechRecognitionResult, any Error>.makeStream()
  let streamStopped = LockIsolated(false)
  static let request = SpeechRecognitionRequest(
    source: .file(URL(fileURLWithPath: "/tmp/talk.wav")), shouldReportPartialResults: false)

  func makeStore(
    _ initialState: UploadSession.State = UploadSession.State(request: Self.request)
  ) -> TestStoreOf<UploadSession> {
    let (stream, continuation) = results
    let streamStopped = self.streamStopped
    continuation.onTermination = { termination in
      if case .cancelled = termination { streamStopped.setValue(true) }
    }
    return TestStore(initialState: initialState) {
      UploadSession(timeLimit: .seconds(60))
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in stream }
    }
  }

  /// Receives the cancel of a running recognition and checks that its stream was stopped.
  func expectCancelledRecognition(_ store: TestStoreOf<UploadSession>) async {
    await store.receive(\.recognition.cancel) {
      $0.recognition?.isRecording = false
      $0.recognition?.status = .idle
      $0.recognition?.outcome = .cancelled
    }
    await store.receive(\.recognition.delegate.ended)
    await store.finish()
    #expect(streamStopped.value)
  }

  func start(_ store: TestStoreOf<UploadSession>) async {
    await store.send(.start)
    await receiveRecognitionStarting(store)
  }

  /// Receives recognition's start: authorized, then recording.
  func receiveRecognitionStarting(_ store: TestStoreOf<UploadSession>) async {
    await store.receiveRecognitionStarting(\.recognition, \.recognition)
  }

  /// The client delivers its final result and ends: the session ends recognized.
  func finishRecognition(_ store: TestStoreOf<UploadSession>) async {
    let final = SpeechRecognitionResult(
      bestTranscription: Transcription(segments: []), isFinal: true)
    results.continuation.yield(final)
    results.continuation.finish()
    await store.receive(\.recognition.speech.success) {
      $0.recognition?.result = final
    }
    await store.receive(\.recognition.delegate.heard)
    await store.receive(\.recognition.recognitionFinished) {
      $0.recognition?.isRecording = false
      $0.recognition?.status = .idle
      $0.recognition?.outcome = .finished
    }
    await store.receive(\.recognition.delegate.ended) {
      $0.ending = .recognized
    }
  }

  @Test func theSessionEndsWithRecognitionsOutcome() async {
    let store = makeStore()
    await start(store)
    await finishRecognition(store)
    // The time limit went with the session.
    await clock.advance(by: .seconds(60))
    #expect(!streamStopped.value)
  }

  @Test func aClientThatLeavesCancelsRecognitionAtOnce() async {
    let store = makeStore()
    await start(store)
    await store.send(.clientLeft) {
      $0.ending = .clientGone
    }
    await expectCancelledRecognition(store)
  }

  @Test func recognitionPastTheTimeLimitIsCancelled() async {
    let store = makeStore()
    await start(store)
    await clock.advance(by: .seconds(59))
    #expect(!streamStopped.value)
    await clock.advance(by: .seconds(1))
    await store.receive(\.timeLimitElapsed) {
      $0.ending = .tooLong
    }
    await expectCancelledRecognition(store)
    // Leaving afterwards changes nothing.
    await store.send(.clientLeft)
  }

  @Test func aShutdownGivesRecognitionTheGracePeriodThenCancelsIt() async {
    let store = makeStore()
    await start(store)
    await store.send(.shutdown)
    await clock.advance(by: .milliseconds(9_999))
    #expect(!streamStopped.value)
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.shutdownGraceElapsed) {
      $0.ending = .shutdown
    }
    await expectCancelledRecognition(store)
  }

  @Test func recognitionThatFinishesWithinTheGracePeriodIsAnswered() async {
    let store = makeStore()
    await start(store)
    await store.send(.shutdown)
    await clock.advance(by: .seconds(5))
    await finishRecognition(store)
    // The grace period went with the session.
    await clock.advance(by: .seconds(60))
    #expect(!streamStopped.value)
  }

  // MARK: - While the body arrives

  @Test func recognitionStartsOnceTheBodyIsInWithinTheSameTimeLimit() async {
    let store = makeStore(UploadSession.State())
    await store.send(.start)
    await clock.advance(by: .seconds(30))
    await store.send(.bodyReceived(Self.request)) {
      $0.recognition = SpeechRecognition.State(request: Self.request)
    }
    await receiveRecognitionStarting(store)
    // Half the session's time went on the body: recognition has the other half.
    await clock.advance(by: .seconds(30))
    await store.receive(\.timeLimitElapsed) {
      $0.ending = .tooLong
    }
    await expectCancelledRecognition(store)
  }

  @Test func aBodyPastTheTimeLimitEndsTheSessionWithoutRecognition() async {
    let store = makeStore(UploadSession.State())
    await store.send(.start)
    await clock.advance(by: .seconds(60))
    await store.receive(\.timeLimitElapsed) {
      $0.ending = .tooLong
    }
    // The body that arrives after the end is not recognized.
    await store.send(.bodyReceived(Self.request))
  }

  @Test func aSlowBodyEndsTheSessionButNotARecognitionUnderWay() async {
    let slow = makeStore(UploadSession.State())
    await slow.send(.start)
    await slow.send(.bodyTooSlow) {
      $0.ending = .tooSlow
    }
    let recognizing = makeStore()
    await start(recognizing)
    await recognizing.send(.bodyTooSlow)
    await finishRecognition(recognizing)
  }

  @Test func aShutdownWhileTheBodyArrivesEndsTheSessionAtOnce() async {
    let store = makeStore(UploadSession.State())
    await store.send(.start)
    await store.send(.shutdown) {
      $0.ending = .shutdown
    }
    await store.send(.clientLeft)
  }

  @Test func aBodyThatCannotBeTakenEndsTheSessionWithItsError() async {
    let store = makeStore(UploadSession.State())
    await store.send(.start)
    await store.send(.bodyRejected(.missingField("file"))) {
      $0.ending = .rejected(.missingField("file"))
    }
  }

  @Test func aClientThatLeavesWhileTheBodyArrivesEndsTheSession() async {
    let store = makeStore(UploadSession.State())
    await store.send(.start)
    await store.send(.clientLeft) {
      $0.ending = .clientGone
    }
  }
}
