import Architecture
import Clocks
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature
import Synchronization
import Testing

@testable import TranscribeServer

/// The vosk stream's session as a reducer, told with `TestStore` and `TestClock`: pacing,
/// deadlines, idle, shutdown, the end of the stream and a client that leaves.
@MainActor
struct VoskSessionTests {
  /// The decoder's side of a recognition task the test drives.
  let results = AsyncThrowingStream<SpeechRecognitionResult, any Error>.makeStream()
  /// The audio the session makes for its recognition request (equal to the one it makes, by
  /// its name); nothing reads it (the speech client is the test's).
  let audio = PushedAudio(sampleRate: 16_000, identifier: "audio 0")
  let clock = TestClock()

  func makeStore(
    finishTask: (@Sendable () async -> Void)? = nil
  ) -> TestStoreOf<VoskSession> {
    let (stream, _) = results
    return TestStore(initialState: VoskSession.State()) {
      VoskSession()
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in stream }
      if let finishTask { $0.speechClient.finishTask = finishTask }
    }
  }

  /// `seconds` of 16 kHz silence as one binary message.
  nonisolated static func chunk(seconds: Double) -> ByteBuffer {
    ByteBuffer(bytes: [UInt8](repeating: 0, count: Int(seconds * 16_000) * 2))
  }

  /// A result: partial `words` after `finished` utterances, with the decoder at `position`.
  nonisolated static func heard(
    _ words: String, finished: [String] = [], at position: TimeInterval
  ) -> SpeechRecognitionResult {
    .heard(words, finished: finished, at: position)
  }

  /// The decoder reports having reached `position` with no words; the session receives it, and
  /// changes its state with `changes` besides taking the result.
  func decoder(
    reports position: TimeInterval, to store: TestStoreOf<VoskSession>,
    changes: ((inout VoskSession.State) -> Void)? = nil
  ) async {
    let result = Self.heard("", at: position)
    results.continuation.yield(result)
    await store.receive(\.recognition.speech.success) {
      $0.recognition?.result = result
    }
    if let changes {
      await store.receive(\.recognition.delegate.heard) { changes(&$0) }
    } else {
      await store.receive(\.recognition.delegate.heard)
    }
  }

  /// Receives the cancel the session sends to a recognition that still runs when it ends.
  func receiveCancelledRecognition(_ store: TestStoreOf<VoskSession>) async {
    await store.receive(\.recognition.cancel) {
      $0.recognition?.isRecording = false
      $0.recognition?.status = .idle
      $0.recognition?.outcome = .cancelled
    }
    await store.receive(\.recognition.delegate.ended)
  }

  /// Sends the first audio message and lets recognition start.
  func start(_ store: TestStoreOf<VoskSession>, seconds: Double = 0.2) async {
    await store.send(.audio(Self.chunk(seconds: seconds))) {
      $0.stream.receivedMessages = 1
      var request = SpeechRecognitionRequest(source: .pushed(audio))
      request.keptUtterances = ServerConfiguration.streamKeptUtterances
      $0.recognition = SpeechRecognition.State(request: request)
      $0.audioMessages = 1
      $0.pushedSamples = Int(seconds * 16_000)
      $0.pending = .init(number: 1, samples: Int(seconds * 16_000))
    }
    await store.receiveRecognitionStarting(\.recognition, \.recognition)
  }

  @Test func anAudioMessageIsAnsweredOnceTheDecoderHasCaughtUpWithIt() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await start(store)
    let requested = store.state.recognition?.request.source
    // The decoder has heard half of the message: no reply yet, and no next message.
    results.continuation.yield(Self.heard("hello", at: 0.1))
    await store.receive(\.recognition.speech.success) {
      $0.recognition?.result = Self.heard("hello", at: 0.1)
    }
    await store.receive(\.recognition.delegate.heard)
    // Now all of it: the reply goes out and the next message may be read.
    results.continuation.yield(Self.heard("hello world", at: 0.2))
    await store.receive(\.recognition.speech.success) {
      $0.recognition?.result = Self.heard("hello world", at: 0.2)
    }
    await store.receive(\.recognition.delegate.heard) {
      $0.pending = nil
      $0.stream.outbox = [.reply(.partial("hello world"))]
      $0.stream.allowedMessages = 2
    }
    await store.send(.stream(.written(through: 1))) {
      $0.stream.outbox = []
      $0.stream.written = 1
    }
    // The reply's deadline went with the reply: two seconds on, nothing happens.
    await clock.advance(by: .seconds(2))
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end) {
      $0.stream.ending = .clientGone
    }
    await receiveCancelledRecognition(store)
    await store.finish()
    // The host pushes the message into the very audio the recognition request reads, and the
    // session ended it.
    guard case .pushed(let audio)? = requested else {
      Issue.record("expected pushed audio, got \(String(describing: requested))")
      return
    }
    #expect(store.state.audio === audio && audio.isFinished)
    #expect(
      VoskSession.pcm(of: .audio(Self.chunk(seconds: 0.2)), in: store.state)?.readableBytes == 6_400
    )
  }

  @Test func theStopAfterTheAudioEndedReachesOnlyTheRecognitionOfThatAudio() async {
    let store = makeStore(finishTask: {})
    await store.send(.stream(.start))
    // An end of audio with no recognition, then one that is not the recording's (it ended
    // after message 0, and the recording has message 1): no stop (the exhaustive store fails
    // on any action received and not asserted).
    await store.send(.stream(.audioEnded(after: 0)))
    await start(store)
    await store.send(.stream(.audioEnded(after: 0)))
    // The end of its own audio stops it.
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.audioEnded(after: 1)))
    await store.receive(\.recognition.finish)
    await store.send(.stream(.clientLeft))
    await store.skipReceivedActions()
  }

  @Test func aReplyWaitsAtMostTwoSecondsForTheDecoderAndTimersDoNotPileUp() async {
    let store = makeStore()
    store.exhaustivity = .off(showSkippedAssertions: false)
    await start(store)
    await clock.advance(by: .milliseconds(1_999))
    #expect(store.state.stream.outbox.isEmpty)
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.replyDeadlineElapsed) {
      $0.pending = nil
      $0.stream.outbox = [.reply(.partial(""))]
      $0.stream.allowedMessages = 2
    }
    await store.send(.stream(.written(through: 1)))
    // Fifty more messages, each answered as soon as the decoder has it: no deadline of any
    // of them is left to fire.
    for number in 2...51 {
      await store.send(.audio(Self.chunk(seconds: 0.2)))
      // The decoder says how far it has got.
      results.continuation.yield(Self.heard("", at: Double(number) * 0.2))
      await store.receive(\.recognition.speech.success)
      await store.receive(\.recognition.delegate.heard) {
        $0.pending = nil
        $0.stream.outbox = [.reply(.partial(""))]
        $0.stream.allowedMessages = number + 1
      }
      await store.send(.stream(.written(through: number)))
    }
    await store.skipReceivedActions(strict: false)
    // From here every action must be accounted for: a deadline left behind would fire.
    store.exhaustivity = .on
    await clock.advance(by: .seconds(10))
    #expect(store.state.stream.outbox.isEmpty)
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end) {
      $0.stream.ending = .clientGone
    }
    await receiveCancelledRecognition(store)
  }

  @Test func noMessageIsReadWhileMoreThanFiveSecondsOfAudioWaitToBeDecoded() async {
    let store = makeStore()
    store.exhaustivity = .off(showSkippedAssertions: false)
    await start(store, seconds: 5.2)
    // The reply goes out on time, but the decoder has read nothing: the next message waits.
    await clock.advance(by: .seconds(2))
    await store.receive(\.replyDeadlineElapsed) {
      $0.stream.outbox = [.reply(.partial(""))]
      $0.stream.wantsMessage = true
      $0.stream.allowedMessages = 1
    }
    // Once the decoder has decoded the audio and says so, the next message may come.
    results.continuation.yield(Self.heard("", at: 5.2))
    await store.receive(\.recognition.speech.success)
    await store.receive(\.recognition.delegate.heard) {
      $0.stream.wantsMessage = false
      $0.stream.allowedMessages = 2
    }
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end)
  }

  @Test func theNextMessageWaitsUntilTheDecoderReportsNoMoreThanFiveSecondsLeft() async {
    let store = makeStore()
    await start(store, seconds: 5.2)
    await clock.advance(by: .seconds(2))
    await store.receive(\.replyDeadlineElapsed) {
      $0.pending = nil
      $0.stream.outbox = [.reply(.partial(""))]
      $0.stream.wantsMessage = true
    }
    await store.send(.stream(.written(through: 1))) {
      $0.stream.outbox = []
      $0.stream.written = 1
    }
    // 5.1 s still wait to be decoded: the socket is not read.
    await decoder(reports: 0.1, to: store)
    // 5 s wait: there is room again, and the next message may be read.
    await decoder(reports: 0.2, to: store) {
      $0.stream.wantsMessage = false
      $0.stream.allowedMessages = 2
    }
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end) {
      $0.stream.ending = .clientGone
    }
    await receiveCancelledRecognition(store)
    await store.finish()
    #expect(store.state.audio?.isFinished == true)
  }

  @Test func anIdleStreamIsClosedWith1008AfterTheIdleTimeout() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await store.send(.read(#"{"config": {"sample_rate": 16000}}"#)) {
      $0.stream.receivedMessages = 1
      $0.stream.allowedMessages = 2
    }
    await clock.advance(by: .seconds(29))
    await clock.advance(by: .seconds(1))
    let error = WebSocketSessionError.session(.idle(.seconds(30)))
    await store.receive(\.stream.idleTimeoutElapsed)
    await store.receive(\.stream.delegate.mustClose) {
      $0.stream.outbox = [.reply(.error(error.message)), .close(error)]
      $0.stream.ending = .problem(error)
    }
    #expect(error.closeCode == 1008)
  }

  @Test func configurationsSentOverAndOverDoNotRenewTheIdleTime() async {
    let store = makeStore()
    await store.send(.stream(.start))
    for number in 1...3 {
      await store.send(.read(#"{"config": {"sample_rate": 16000}}"#)) {
        $0.stream.receivedMessages = number
        $0.stream.allowedMessages = number + 1
      }
      await clock.advance(by: .seconds(10))
    }
    // 30 s after the start, whatever the configurations.
    let error = WebSocketSessionError.session(.idle(.seconds(30)))
    await store.receive(\.stream.idleTimeoutElapsed)
    await store.receive(\.stream.delegate.mustClose) {
      $0.stream.outbox = [.reply(.error(error.message)), .close(error)]
      $0.stream.ending = .problem(error)
    }
  }

  @Test func aShutdownDeliversTheLastWordsThenClosesWith1001() async {
    let results = self.results
    let store = makeStore(finishTask: {
      results.continuation.yield(Self.heard("", finished: ["good morning"], at: 0.4))
      results.continuation.finish()
    })
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await start(store, seconds: 0.4)
    results.continuation.yield(Self.heard("good", at: 0.4))
    await store.receive(\.recognition.speech.success)
    await store.receive(\.recognition.delegate.heard) {
      $0.stream.outbox = [.reply(.partial("good"))]
    }
    await store.send(.stream(.written(through: 1)))
    await store.send(.stream(.shutdown))
    await store.receive(\.stream.delegate.mustClose) {
      $0.phase = .finishing(closing: .session(.shuttingDown))
    }
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    // The stop went out after the end of the audio.
    #expect(store.state.audio?.isFinished == true)
    await store.receive(\.recognition.recognitionFinished)
    await store.receive(\.recognition.delegate.ended)
    // The client has no message waiting: the last words answer the next one it sends, or go
    // out two seconds later.
    let words =
      Self.heard("", finished: ["good morning"], at: 0.4).bestTranscription
      .finishedUtterances.first.map(Array.init) ?? []
    #expect(store.state.phase == .awaitingMessage(words: words, closing: .session(.shuttingDown)))
    #expect(store.state.stream.allowedMessages == 2)
    await clock.advance(by: .seconds(2))
    await store.receive(\.messageWaitElapsed) {
      $0.stream.outbox = [
        .reply(.result(words)),
        .reply(.error(WebSocketSessionError.session(.shuttingDown).message)),
        .close(.session(.shuttingDown)),
      ]
      $0.stream.ending = .problem(.session(.shuttingDown))
    }
    #expect(WebSocketSessionError.session(.shuttingDown).closeCode == 1001)
  }

  /// A stream's recognition keeps only its latest utterances (a caption stream open for hours):
  /// each finished one is still taken once, in order, by its number.
  @Test func finishedUtterancesAreTakenByNumberThoughOnlyTheLatestAreKept() {
    var state = VoskSession.State()
    state.recognition = SpeechRecognition.State(
      request: SpeechRecognitionRequest(source: .pushed(audio)))
    var builder = TranscriptionBuilder(keepingLast: 1)
    for text in ["one", "two", "three", "four"] {
      builder.appendUtterance([
        TranscriptionSegment(substring: text, timestamp: 0, duration: 0.3, confidence: 1)
      ])
      state.recognition?.result = SpeechRecognitionResult(
        bestTranscription: builder.transcription, isFinal: false)
      state.takeFinishedUtterances()
    }
    #expect(state.recognition?.result?.bestTranscription.finishedUtterances.indices == 2..<4)
    #expect(state.finals.map { $0.map(\.substring) } == [["one"], ["two"], ["three"], ["four"]])
    #expect(state.takenUtterances == 4)
  }

  @Test func theEndOfTheStreamSendsEveryWordNotSentThenClosesNormally() async {
    let results = self.results
    let store = makeStore(finishTask: {
      results.continuation.yield(
        Self.heard("", finished: ["one two", "three"], at: 0.6))
      results.continuation.finish()
    })
    store.exhaustivity = .off(showSkippedAssertions: false)
    await start(store, seconds: 0.6)
    results.continuation.yield(Self.heard("three", finished: ["one two"], at: 0.6))
    await store.receive(\.recognition.speech.success)
    await store.receive(\.recognition.delegate.heard)
    let firstUtterance =
      Self.heard("", finished: ["one two"], at: 0).bestTranscription
      .finishedUtterances.first.map(Array.init) ?? []
    #expect(store.state.stream.outbox == [.reply(.result(firstUtterance))])
    await store.send(.stream(.written(through: 1)))
    await store.send(.read(#"{"eof" : 1}"#))
    await store.receive(\.recognition.recognitionFinished)
    await store.receive(\.recognition.delegate.ended)
    let last =
      Self.heard("", finished: ["one two", "three"], at: 0).bestTranscription
      .finishedUtterances.last.map(Array.init) ?? []
    #expect(store.state.stream.outbox == [.reply(.result(last)), .close(nil)])
    #expect(store.state.stream.ending == .finished)
  }

  @Test func aStopTheRecognizerDoesNotAnswerInTimeClosesWith1011NotAnEmptyResult() async throws {
    // The decoder never answers the stop (every worker busy elsewhere, say).
    let store = makeStore(finishTask: {})
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await start(store)
    await store.send(.read(#"{"eof" : 1}"#))
    await clock.advance(by: .milliseconds(9_999))
    #expect(store.state.stream.outbox.isEmpty)
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.recognition.stopDeadlineElapsed)
    await store.receive(\.recognition.delegate.ended)
    let error = WebSocketSessionError(try #require(RecognitionProblem(.stopTimedOut)))
    #expect(store.state.stream.outbox == [.reply(.error(error.message)), .close(error)])
    #expect(store.state.stream.ending == .problem(error))
    #expect(error.closeCode == 1011)
    #expect(
      error.message
        == "recognition failed: the last words did not arrive within 10 s of the end of the "
        + "audio (every decoder may be busy); try again later")
  }

  @Test func aRecognitionThatFailsMidStreamClosesAtOnceWithItsProblem() async {
    let store = makeStore()
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await start(store)
    // A phrase the engine's dictionary lacks is the client's mistake (1007).
    results.continuation.finish(
      throwing: SpeechClient.Failure.wordNotInDictionary(word: "zorblax", dictionary: "cmudict"))
    await store.receive(\.recognition.delegate.ended)
    let error = WebSocketSessionError.input(.phraseNotInDictionary("zorblax"))
    #expect(store.state.stream.outbox == [.reply(.error(error.message)), .close(error)])
    #expect(store.state.stream.ending == .problem(error))
    #expect(error.closeCode == 1007)
    #expect(store.state.pending == nil)
  }

  @Test func aClientThatLeavesMidStreamCancelsRecognitionAndEveryTimer() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await start(store, seconds: 3)
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end) {
      $0.stream.ending = .clientGone
      $0.pending = nil
    }
    await receiveCancelledRecognition(store)
    // Nothing is left running: no reply deadline, idle or maximum-length timer, no decoder.
    await store.finish()
    await clock.advance(by: .seconds(7_200))
    #expect(store.state.audio?.isFinished == true)
  }

  @Test func protocolErrorsCloseAtOnceWithTheirCode() async {
    let store = makeStore()
    await store.send(.stream(.start))
    let error = WebSocketSessionError.oddLengthFrame(bytes: 3)
    await store.send(.audio(ByteBuffer(bytes: [0, 0, 0]))) {
      $0.stream.receivedMessages = 1
      $0.stream.outbox = [.reply(.error(error.message)), .close(error)]
      $0.stream.ending = .problem(error)
    }
    #expect(error.closeCode == 1007)
    // Once over, messages change nothing.
    await store.send(.read(#"{"eof" : 1}"#)) {
      $0.stream.receivedMessages = 2
    }
  }

  @Test func aTextMessageOverTheLimitIsClosedWith1009AfterAnError() async {
    let store = makeStore()
    let text =
      #"{"config": {"phrase_list": [""# + String(repeating: "\"a\",", count: 300_000) + "]}}"
    let error = WebSocketSessionError.session(
      .messageTooLarge(bytes: text.utf8.count, limit: ServerConfiguration().maxFrameBytes))
    await store.send(.read(text)) {
      $0.stream.receivedMessages = 1
      $0.stream.outbox = [.reply(.error(error.message)), .close(error)]
      $0.stream.ending = .problem(error)
    }
    #expect(error.closeCode == 1009)
  }
}

extension VoskSession.Action {
  /// A text message from the client, read as ``VoskCodec`` reads it.
  static func read(_ text: String, limits: ServerConfiguration = ServerConfiguration()) -> Self {
    .message(VoskMessage.read(text, limits: limits))
  }
}
