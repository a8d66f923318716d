import Architecture
import Clocks
import ConcurrencyExtras
import Foundation
import SpeechClient
import SpeechRecognitionFeature
import Testing

/// What the feature owns beyond the demo: stopping early, the recording limit, the stop
/// deadline, progress, and the lorem preview client.
@MainActor
struct SessionTests {
  /// A store for `state` whose client authorizes, answers `startTask` with `stream` and records
  /// each request in `started`; `finishTask` and the clock only when a test needs them.
  func recordingStore(
    _ state: SpeechRecognition.State,
    stream: AsyncThrowingStream<SpeechRecognitionResult, any Error>,
    started: LockIsolated<[SpeechRecognitionRequest]>, clock: TestClock<Duration>? = nil,
    finishTask: (@Sendable () async -> Void)? = nil
  ) -> TestStoreOf<SpeechRecognition> {
    TestStore(initialState: state) {
      SpeechRecognition()
    } withDependencies: {
      if let clock { $0.continuousClock = clock }
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { request in
        started.withValue { $0.append(request) }
        return stream
      }
      if let finishTask { $0.speechClient.finishTask = finishTask }
    }
  }

  /// Taps record and goes through authorization until the client's task has started.
  func startRecording(_ store: TestStoreOf<SpeechRecognition>) async {
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse) {
      $0.status = .starting
    }
    await store.receive(\.recognitionStarted) {
      $0.status = .recording
    }
  }

  @Test func startAndFinishSayWhatAHostWithoutAButtonMeans() async {
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let store = recordingStore(
      SpeechRecognition.State(), stream: stream, started: LockIsolated([]),
      clock: TestClock(),
      finishTask: {
        continuation.yield(result("", isFinal: true))
        continuation.finish()
      })
    // Finishing before anything started does nothing.
    await store.send(.finish)
    await store.send(.start) {
      $0.isRecording = true
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse) {
      $0.status = .starting
    }
    await store.receive(\.recognitionStarted) {
      $0.status = .recording
    }
    // Starting again does not stop, as a second tap would.
    await store.send(.start)
    await store.send(.finish) {
      $0.isRecording = false
      $0.status = .finishing
    }
    await store.receive(\.speech.success) {
      $0.result = result("", isFinal: true)
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.recognitionFinished) {
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
    await store.send(.finish)
  }

  @Test func stopWhileAuthorizingMeansRecordingNeverStarts() async {
    let clock = TestClock()
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = {
        try? await clock.sleep(for: .seconds(2))
        return .authorized
      }
      // startTask stays unimplemented: calling it would fail the test.
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
      $0.status = .authorizing
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = false
      $0.status = .idle
      $0.outcome = .cancelled
    }
    await store.receive(\.delegate.ended, .cancelled)
    await clock.run()
  }

  @Test func stopWhileStartingFinishesOnceTheTaskHasStarted() async {
    let clock = TestClock()
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in
        try? await clock.sleep(for: .seconds(1))
        return stream
      }
      $0.speechClient.finishTask = {
        continuation.yield(result("", isFinal: true))
        continuation.finish()
      }
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = true
      $0.status = .authorizing
    }
    await store.receive(\.authorizationResponse) {
      $0.status = .starting
    }
    await store.send(.recordButtonTapped) {
      $0.isRecording = false
      $0.status = .finishing
    }
    await clock.advance(by: .seconds(1))
    // Only now can the client finish the task.
    await store.receive(\.recognitionStarted)
    await store.receive(\.speech.success) {
      $0.result = result("", isFinal: true)
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.recognitionFinished) {
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
  }

  @Test func cancelEndsTheSessionAtOnceAndStopsTheClientsStream() async {
    let clock = TestClock()
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let streamEnded = LockIsolated(false)
    continuation.onTermination = { _ in streamEnded.setValue(true) }
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in stream }
      // finishTask stays unimplemented: cancelling does not wait for the last words.
    }
    await startRecording(store)
    continuation.yield(result("hello", isFinal: false))
    await store.receive(\.speech.success) {
      $0.result = result("hello", isFinal: false)
    }
    await store.receive(\.delegate.heard)
    await store.send(.cancel) {
      $0.isRecording = false
      $0.status = .idle
      $0.outcome = .cancelled
    }
    await store.receive(\.delegate.ended, .cancelled)
    // No effect is left running: the recognition stream was cancelled, not finished.
    await store.finish()
    #expect(streamEnded.value)
    // Once over, cancelling again changes nothing.
    await store.send(.cancel)
  }

  @Test func durationStopsLiveRecordingAfterThatMuchClockTime() async {
    let clock = TestClock()
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let store = TestStore(initialState: SpeechRecognition.State(duration: .seconds(5))) {
      SpeechRecognition()
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in stream }
      $0.speechClient.finishTask = {
        continuation.yield(result("hello", isFinal: true))
        continuation.finish()
      }
    }
    await startRecording(store)
    await clock.advance(by: .seconds(5) - .milliseconds(1))
    #expect(store.state.isRecording)
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.durationElapsed) {
      $0.isRecording = false
      $0.status = .finishing
    }
    await store.receive(\.speech.success) {
      $0.result = result("hello", isFinal: true)
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.recognitionFinished) {
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
  }

  @Test func durationCutsAFileByAudioTimeNotClockTime() async {
    let clock = TestClock()
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let started = LockIsolated<[SpeechRecognitionRequest]>([])
    let file = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/talk.wav")))
    let store = recordingStore(
      SpeechRecognition.State(request: file, duration: .seconds(2)), stream: stream,
      started: started, clock: clock)
    await startRecording(store)
    // The client is asked for the first two seconds of audio, and reads no further.
    var limited = file
    limited.maximumAudioDuration = .seconds(2)
    #expect(started.value == [limited])
    // An hour of clock time does not stop a file.
    await clock.advance(by: .seconds(3600))
    continuation.yield(result("one", progress: .init(audioDuration: 1.5, totalAudioDuration: 2)))
    await store.receive(\.speech.success) {
      $0.result = result("one", progress: .init(audioDuration: 1.5, totalAudioDuration: 2))
    }
    await store.receive(\.delegate.heard)
    // The words of the last piece before the limit come after it is reached: nothing is cut
    // short on the way.
    continuation.yield(result("one two", progress: .init(audioDuration: 2, totalAudioDuration: 2)))
    await store.receive(\.speech.success) {
      $0.result = result("one two", progress: .init(audioDuration: 2, totalAudioDuration: 2))
    }
    await store.receive(\.delegate.heard)
    continuation.yield(
      result(
        "one two three", isFinal: true, progress: .init(audioDuration: 2, totalAudioDuration: 2)))
    continuation.finish()
    await store.receive(\.speech.success) {
      $0.result = result(
        "one two three", isFinal: true, progress: .init(audioDuration: 2, totalAudioDuration: 2))
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.recognitionFinished) {
      $0.isRecording = false
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
  }

  @Test func aShorterLimitOfTheRequestItselfStays() async {
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let started = LockIsolated<[SpeechRecognitionRequest]>([])
    var file = SpeechRecognitionRequest(source: .standardInput(raw: true))
    file.maximumAudioDuration = .seconds(1)
    let store = recordingStore(
      SpeechRecognition.State(request: file, duration: .seconds(2)), stream: stream,
      started: started)
    await startRecording(store)
    #expect(started.value == [file])
    continuation.finish()
    await store.receive(\.recognitionFinished) {
      $0.isRecording = false
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
  }

  @Test func liveCaptureIsNotLimitedByAudioTime() async {
    let clock = TestClock()
    let (stream, _) = AsyncThrowingStream<SpeechRecognitionResult, any Error>.makeStream()
    let started = LockIsolated<[SpeechRecognitionRequest]>([])
    let store = recordingStore(
      SpeechRecognition.State(duration: .seconds(2)), stream: stream, started: started,
      clock: clock, finishTask: {})
    await startRecording(store)
    #expect(started.value.map(\.maximumAudioDuration) == [nil])
    await clock.advance(by: .seconds(2))
    await store.receive(\.durationElapsed) {
      $0.isRecording = false
      $0.status = .finishing
    }
    await store.send(.cancel) {
      $0.status = .idle
      $0.outcome = .cancelled
    }
    await store.receive(\.delegate.ended, .cancelled)
  }

  @Test func stopDeadlineEndsTheSessionWhenTheLastWordsNeverCome() async {
    let clock = TestClock()
    let (stream, _) = AsyncThrowingStream<SpeechRecognitionResult, any Error>.makeStream()
    let finishCalls = LockIsolated(0)
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition(stopDeadline: .seconds(10))
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in stream }
      $0.speechClient.finishTask = { finishCalls.withValue { $0 += 1 } }
    }
    await startRecording(store)
    await store.send(.recordButtonTapped) {
      $0.isRecording = false
      $0.status = .finishing
    }
    // Tapping again while the last words are coming does nothing more.
    await store.send(.recordButtonTapped)
    await clock.advance(by: .seconds(10) - .milliseconds(1))
    #expect(store.state.status == .finishing)
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.stopDeadlineElapsed) {
      $0.status = .idle
      $0.outcome = .stopTimedOut
    }
    await store.receive(\.delegate.ended)
    #expect(finishCalls.value == 1)
  }

  @Test func progressIsTheLatestResultsProgress() async {
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    let file = SpeechRecognitionRequest(source: .rawFile(URL(fileURLWithPath: "/talk.raw")))
    let store = TestStore(initialState: SpeechRecognition.State(request: file)) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in stream }
    }
    await startRecording(store)
    #expect(store.state.progress == nil)
    continuation.yield(result("", progress: .init(audioDuration: 15, totalAudioDuration: 60)))
    await store.receive(\.speech.success) {
      $0.result = result("", progress: .init(audioDuration: 15, totalAudioDuration: 60))
    }
    await store.receive(\.delegate.heard)
    #expect(store.state.progress?.fractionCompleted == 0.25)
    continuation.yield(
      result("done", isFinal: true, progress: .init(audioDuration: 60, totalAudioDuration: 60)))
    continuation.finish()
    await store.receive(\.speech.success) {
      $0.result = result(
        "done", isFinal: true, progress: .init(audioDuration: 60, totalAudioDuration: 60))
    }
    await store.receive(\.delegate.heard)
    await store.receive(\.recognitionFinished) {
      $0.isRecording = false
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
    #expect(store.state.progress?.fractionCompleted == 1)
  }

  @Test func aLateSecondAuthorizationNeverStartsASecondTask() async {
    let starts = LockIsolated(0)
    let store = TestStore(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in
        starts.withValue { $0 += 1 }
        return AsyncThrowingStream { _ in }
      }
    }
    await startRecording(store)
    await store.send(.authorizationResponse(.authorized))
    #expect(starts.value == 1)
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

    // The results carry timings; this story checks the transcript and status.
    store.exhaustivity = .off
    await store.send(.recordButtonTapped)
    await store.receive(\.recognitionStarted) {
      $0.status = .recording
    }
    await clock.advance(by: delays[0] - .milliseconds(1))
    #expect(store.state.transcribedText == "")
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.speech.success)
    await store.receive(\.delegate.heard)
    #expect(store.state.transcribedText == "lorem")
    await clock.advance(by: delays[1])
    await store.receive(\.speech.success)
    await store.receive(\.delegate.heard)
    #expect(store.state.transcribedText == "lorem ipsum")

    await store.send(.recordButtonTapped) {
      $0.isRecording = false
      $0.status = .finishing
    }
    await store.receive(\.speech.success)
    await store.receive(\.delegate.heard)
    #expect(store.state.result?.isFinal == true)
    await store.receive(\.recognitionFinished) {
      $0.status = .idle
      $0.outcome = .finished
    }
    await store.receive(\.delegate.ended)
    #expect(store.state.transcribedText == "lorem ipsum")
  }
}
