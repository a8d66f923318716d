import Architecture
import Clocks
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature
import Synchronization
import Testing

@testable import TranscribeServer

/// A Wyoming connection's session as a reducer, told with `TestStore` and `TestClock`:
/// describe, Home Assistant's sequence, streaming chunks, endpointing, limits, shutdown and
/// the error rows.
@MainActor
struct WyomingSessionTests {
  /// The decoder's side of a recognition task the test drives.
  let results = AsyncThrowingStream<SpeechRecognitionResult, any Error>.makeStream()
  /// The audio the session makes for its first utterance's recognition request (equal to the
  /// one it makes, by its name); nothing reads it (the speech client is the test's).
  let audio = PushedAudio(sampleRate: 16_000, identifier: "audio 1")
  /// The audios the utterances' recognition read, as the speech client got them.
  let requested = RequestedAudios()
  let clock = TestClock()

  static let limits: ServerConfiguration = {
    var limits = ServerConfiguration()
    limits.engines = [.moonshine, .pocketsphinx]
    return limits
  }()

  func makeStore(
    limits: ServerConfiguration = limits, finishTask: (@Sendable () async -> Void)? = nil
  ) -> TestStoreOf<WyomingSession> {
    let (stream, _) = results
    let requested = self.requested
    return TestStore(initialState: WyomingSession.State()) {
      WyomingSession(limits: limits)
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { request in
        requested.record(request)
        return stream
      }
      if let finishTask { $0.speechClient.finishTask = finishTask }
    }
  }

  nonisolated static let audioStart = WyomingEvent(
    "audio-start", data: ["rate": .number(16000), "width": .number(2), "channels": .number(1)])

  /// `seconds` of 16 kHz mono silence as an audio chunk.
  nonisolated static func chunk(seconds: Double) -> WyomingEvent {
    WyomingEvent(
      "audio-chunk",
      data: ["rate": .number(16000), "width": .number(2), "channels": .number(1)],
      payload: ByteBuffer(bytes: [UInt8](repeating: 0, count: Int(seconds * 16_000) * 2)))
  }

  /// A result: partial `words` after `finished` utterances, with the decoder at `position`.
  nonisolated static func heard(
    _ words: String, finished: [String] = [], at position: TimeInterval
  ) -> SpeechRecognitionResult {
    .heard(words, finished: finished, at: position)
  }

  static func chunkEvent(_ text: String) -> WyomingSession.Output {
    .event(WyomingEvent("transcript-chunk", data: ["text": .string(text)]))
  }

  static func transcript(_ text: String) -> [WyomingSession.Output] {
    [
      .event(WyomingEvent("transcript", data: ["text": .string(text), "language": .string("en")])),
      .event(WyomingEvent("transcript-stop")),
    ]
  }

  static let transcriptStart = WyomingSession.Output.event(
    WyomingEvent("transcript-start", data: ["language": .string("en")]))

  /// Sends `audio-start` (the connection's `number`th event, the session's `audioMessage`th
  /// audio message) and lets recognition start.
  func startAudio(
    _ store: TestStoreOf<WyomingSession>, number: Int, audioMessage: Int = 1
  ) async {
    await store.send(.received(Self.audioStart)) {
      $0.stream.receivedMessages = number
      $0.stream.allowedMessages = number + 1
      $0.phase = .streaming
      $0.audioMessages = audioMessage
      $0.utterance = .init(
        recognition: SpeechRecognition.State(
          request: SpeechRecognitionRequest(source: .pushed(audio))),
        format: WyomingAudioFormat(rate: 16000, width: 2, channels: 1))
      $0.stream.outbox = [Self.transcriptStart]
    }
    await store.receiveRecognitionStarting(in: \.utterance, \.recognition)
  }

  @Test func describeIsAnsweredWithInfoListingTheInstalledModels() async throws {
    let store = makeStore()
    await store.send(.stream(.start))
    let info = WyomingModel.info(
      models: [.init(engine: .moonshine), .init(engine: .pocketsphinx)], endpointing: true,
      version: "0.1.0")
    await store.send(.received(WyomingEvent("describe"))) {
      $0.stream.receivedMessages = 1
      $0.stream.allowedMessages = 2
      $0.stream.outbox = [.event(info)]
    }
    await store.send(.clientFinishedSending) {
      $0.isClientDone = true
      $0.stream.outbox.append(.close)
      $0.stream.ending = .finished
    }
    guard case .array(let programs)? = info.data["asr"], case .object(let asr)? = programs.first,
      case .array(let models)? = asr["models"]
    else {
      Issue.record("no asr program in \(info)")
      return
    }
    let names = models.compactMap { model -> String? in
      guard case .object(let fields) = model else { return nil }
      return fields["name"]?.stringValue
    }
    #expect(names == ["moonshine-base-en", "pocketsphinx-en-us"])
    #expect(asr["supports_transcript_streaming"] == .bool(true))
    #expect(asr["requires_external_vad"] == .bool(false))
  }

  @Test func homeAssistantsSequenceGetsTheTranscriptAfterAudioStop() async {
    let results = self.results
    let store = makeStore(finishTask: {
      results.continuation.yield(Self.heard("", finished: ["go forward ten meters"], at: 0.4))
      results.continuation.finish()
    })
    await store.send(.stream(.start))
    await store.send(.received(WyomingEvent("transcribe", data: ["language": .string("en")]))) {
      $0.stream.receivedMessages = 1
      $0.stream.allowedMessages = 2
      $0.request.language = "en"
      $0.request.servedLanguage = .english
    }
    await startAudio(store, number: 2)
    await store.send(.received(Self.chunk(seconds: 0.4))) {
      $0.stream.receivedMessages = 3
      $0.stream.allowedMessages = 4
      $0.audioMessages = 2
      $0.utterance?.pushedSamples = 6_400
    }
    // Partial words stream once two results in a row agree on them.
    results.continuation.yield(Self.heard("go for", at: 0.2))
    await store.receive(\.recognition.speech.success) {
      $0.utterance?.recognition.result = Self.heard("go for", at: 0.2)
    }
    await store.receive(\.recognition.delegate.heard) {
      _ = $0.utterance?.heardWords.settle(["go", "for"], finished: 0)
    }
    results.continuation.yield(Self.heard("go forward ten", at: 0.3))
    await store.receive(\.recognition.speech.success) {
      $0.utterance?.recognition.result = Self.heard("go forward ten", at: 0.3)
    }
    await store.receive(\.recognition.delegate.heard) {
      _ = $0.utterance?.heardWords.settle(["go", "forward", "ten"], finished: 0)
      $0.utterance?.streamedWords = ["go"]
      $0.stream.outbox.append(Self.chunkEvent("go"))
    }
    await store.send(.received(WyomingEvent("audio-stop"))) {
      $0.stream.receivedMessages = 4
      $0.stream.allowedMessages = 5
      $0.phase = .finishing(closing: nil)
    }
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish) {
      $0.utterance?.recognition.isRecording = false
      $0.utterance?.recognition.status = .finishing
    }
    await store.receive(\.recognition.speech.success) {
      $0.utterance?.recognition.result = Self.heard(
        "", finished: ["go forward ten meters"], at: 0.4)
    }
    await store.receive(\.recognition.delegate.heard)
    await store.receive(\.recognition.recognitionFinished) {
      $0.utterance?.recognition.status = .idle
      $0.utterance?.recognition.outcome = .finished
    }
    await store.receive(\.recognition.delegate.ended) {
      $0.stream.outbox +=
        [Self.chunkEvent(" forward ten meters")]
        + Self.transcript("go forward ten meters")
      $0.transcripts = 1
      $0.phase = .ready
      $0.decoded = [.moonshine: 0.4]
      $0.utterance = nil
      $0.request = .init()
    }
    // The utterance's audio ended before the stop.
    #expect(requested.summary == [.init(rate: 16_000, isFinished: true)])

    await store.send(.stream(.written(through: 5))) {
      $0.stream.outbox = []
      $0.stream.written = 5
    }
    // Home Assistant closes once it has the transcript.
    await store.send(.clientFinishedSending) {
      $0.isClientDone = true
      $0.stream.outbox = [.close]
      $0.stream.ending = .finished
    }
  }

  @Test func theEndOfSpeechSendsTheTranscriptWithoutWaitingForAudioStop() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    await store.send(.received(Self.chunk(seconds: 1))) {
      $0.stream.receivedMessages = 2
      $0.stream.allowedMessages = 3
      $0.audioMessages = 2
      $0.utterance?.pushedSamples = 16_000
    }
    // The detector heard a pause after "turn on the light": that is the command.
    let heard = Self.heard("and", finished: ["turn on the light"], at: 1)
    results.continuation.yield(heard)
    await store.receive(\.recognition.speech.success) {
      $0.utterance?.recognition.result = heard
    }
    await store.receive(\.recognition.delegate.heard) {
      $0.stream.outbox +=
        [Self.chunkEvent("turn on the light")] + Self.transcript("turn on the light")
      $0.transcripts = 1
      $0.phase = .endpointed
      $0.decoded = [.moonshine: 1]
      $0.utterance = nil
    }

    // The client goes on sending until it sees the transcript: ignored, then its audio-stop.
    await store.send(.received(Self.chunk(seconds: 0.2))) {
      $0.stream.receivedMessages = 3
      $0.stream.allowedMessages = 4
    }
    await store.send(.received(WyomingEvent("audio-stop"))) {
      $0.stream.receivedMessages = 4
      $0.stream.allowedMessages = 5
      $0.phase = .ready
    }
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end) {
      $0.stream.ending = .clientGone
    }
    await store.finish()
    // The utterance's audio ended when its transcript went out; the rest was not pushed.
    #expect(requested.summary == [.init(rate: 16_000, isFinished: true)])
  }

  @Test func withoutEndpointingAPauseDoesNotEndTheCommand() async {
    var limits = Self.limits
    limits.wyoming.endpointing = false
    let store = makeStore(limits: limits)
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    results.continuation.yield(Self.heard("and", finished: ["turn on the light"], at: 1))
    await store.receive(\.recognition.speech.success)
    await store.receive(\.recognition.delegate.heard)
    #expect(store.state.phase == .streaming)
    // The finished utterance's words have settled.
    #expect(store.state.utterance?.streamedWords == ["turn", "on", "the", "light"])
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end)
  }

  @Test func aShutdownDeliversTheTranscriptSoFarThenTheError() async {
    let results = self.results
    let store = makeStore(finishTask: {
      results.continuation.yield(Self.heard("", finished: ["good morning"], at: 0.4))
      results.continuation.finish()
    })
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    await store.send(.stream(.shutdown))
    await store.receive(\.stream.delegate.mustClose) {
      $0.phase = .finishing(closing: .session(.shuttingDown))
    }
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    await store.receive(\.recognition.recognitionFinished)
    await store.receive(\.recognition.delegate.ended)
    #expect(
      store.state.stream.outbox
        == [Self.transcriptStart, Self.chunkEvent("good morning")]
        + Self.transcript("good morning") + [
          .event(WyomingProblem.session(.shuttingDown).event), .close,
        ])
    #expect(store.state.stream.ending == .problem(.session(.shuttingDown)))
  }

  @Test func anIdleConnectionGetsItsErrorThenTheClose() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await clock.advance(by: Self.limits.idleTimeout)
    await store.receive(\.stream.idleTimeoutElapsed)
    await store.receive(\.stream.delegate.mustClose) {
      $0.stream.outbox = [
        .event(WyomingProblem.session(.idle(Self.limits.idleTimeout)).event), .close,
      ]
      $0.stream.ending = .problem(.session(.idle(Self.limits.idleTimeout)))
    }
  }

  @Test func noEventIsReadWhileMoreThanFiveSecondsOfAudioWaitToBeDecoded() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    // 5.2 s arrive at once: the next event waits in TCP.
    await store.send(.received(Self.chunk(seconds: 5.2))) {
      $0.stream.receivedMessages = 2
      $0.stream.wantsMessage = true
      $0.audioMessages = 2
      $0.utterance?.pushedSamples = 83_200
    }
    // 5.1 s still wait to be decoded, as the decoder reports: no event yet.
    results.continuation.yield(Self.heard("", at: 0.1))
    await store.receive(\.recognition.speech.success) {
      $0.utterance?.recognition.result = Self.heard("", at: 0.1)
    }
    await store.receive(\.recognition.delegate.heard)
    // 5 s wait: there is room again, and the next event may be read.
    results.continuation.yield(Self.heard("", at: 0.2))
    await store.receive(\.recognition.speech.success) {
      $0.utterance?.recognition.result = Self.heard("", at: 0.2)
    }
    await store.receive(\.recognition.delegate.heard) {
      $0.stream.wantsMessage = false
      $0.stream.allowedMessages = 3
    }
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end) {
      $0.stream.ending = .clientGone
      $0.utterance = nil
      $0.decoded = [.moonshine: 0.2]
    }
    await store.finish()
    #expect(requested.summary == [.init(rate: 16_000, isFinished: true)])
  }

  @Test func aTrickleOfTinyChunksIsClosedAfterTheIdleTimeWithTooLittleAudio() async {
    let results = self.results
    let store = makeStore(finishTask: {
      results.continuation.yield(Self.heard("", at: 0.0002))
      results.continuation.finish()
    })
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    // One sample every 10 s: audio keeps coming, but never 0.1 s of it.
    let sample = WyomingEvent("audio-chunk", payload: ByteBuffer(bytes: [0, 0]))
    for _ in 0..<3 {
      await store.send(.received(sample))
      await clock.advance(by: .seconds(10))
    }
    await store.receive(\.stream.idleTimeoutElapsed)
    await store.receive(\.stream.delegate.mustClose)
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    await store.receive(\.recognition.recognitionFinished)
    await store.receive(\.recognition.delegate.ended)
    let problem = WyomingProblem.session(
      .tooLittleAudio(
        received: .nanoseconds(187_500), within: .seconds(30), renewal: .milliseconds(100)))
    // The transcript of the audio so far, then the error and the close.
    #expect(
      store.state.stream.outbox.suffix(4)
        == Self.transcript("") + [.event(problem.event), .close])
    #expect(store.state.stream.ending == .problem(problem))
    #expect(problem.code == "too-little-audio")
    #expect(problem.outcome == .tooLittleAudio)
    // The same words as the vosk protocol's.
    #expect(
      problem.text
        == WebSocketSessionError.session(
          .tooLittleAudio(
            received: .nanoseconds(187_500), within: .seconds(30), renewal: .milliseconds(100))
        ).message)
    #expect(problem.text.hasPrefix("too little audio: 0.000188 s in the last 30 s"))
  }

  @Test func aRealTimeClientWithPausesShorterThanTheIdleTimeIsServed() async {
    let results = self.results
    let store = makeStore(finishTask: {
      results.continuation.yield(Self.heard("", finished: ["lights off"], at: 0.6))
      results.continuation.finish()
    })
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    for _ in 0..<3 {
      await store.send(.received(Self.chunk(seconds: 0.2)))
      await clock.advance(by: .seconds(29))
    }
    await store.send(.received(WyomingEvent("audio-stop")))
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    await store.receive(\.recognition.recognitionFinished)
    await store.receive(\.recognition.delegate.ended)
    #expect(store.state.stream.outbox.suffix(2) == Self.transcript("lights off"))
    #expect(store.state.phase == .ready)
    await store.send(.clientFinishedSending)
    #expect(store.state.stream.ending == .finished)
  }

  @Test func describeOverAndOverDoesNotRenewTheIdleTime() async {
    let store = makeStore()
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    for _ in 0..<3 {
      await store.send(.received(WyomingEvent("describe")))
      await store.send(.received(WyomingEvent("ping")))
      await clock.advance(by: .seconds(10))
    }
    // Thirty seconds after the connection opened, however many events it sent.
    await store.receive(\.stream.idleTimeoutElapsed)
    await store.receive(\.stream.delegate.mustClose)
    let problem = WyomingProblem.session(.idle(.seconds(30)))
    #expect(Array(store.state.stream.outbox.suffix(2)) == [.event(problem.event), .close])
    #expect(store.state.stream.ending == .problem(problem))
    // The words every protocol says (``SessionProblem``).
    #expect(problem.text == "no audio for 30 s; the stream was closed")
  }

  @Test func aRecognitionThatFailsMidUtteranceClosesAtOnceWithItsError() async {
    let store = makeStore()
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    results.continuation.finish(throwing: SpeechClient.Failure.decoderFailure("out of memory"))
    await store.receive(\.recognition.delegate.ended)
    let problem = WyomingProblem.session(
      .recognitionFailed("the speech decoder failed (out of memory)"))
    #expect(Array(store.state.stream.outbox.suffix(2)) == [.event(problem.event), .close])
    #expect(store.state.stream.ending == .problem(problem))
    #expect(store.state.utterance == nil)
    #expect(problem.event.data["code"]?.stringValue == "recognition-failed")
  }

  @Test func lastWordsThatNeverComeEndInAnErrorNotAnEmptyTranscript() async {
    let store = makeStore(finishTask: {})
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    await startAudio(store, number: 1)
    await store.send(.received(WyomingEvent("audio-stop")))
    await clock.advance(by: .seconds(10))
    await store.receive(\.recognition.stopDeadlineElapsed)
    await store.receive(\.recognition.delegate.ended)
    #expect(store.state.stream.outbox.last == .close)
    #expect(
      store.state.stream.outbox.dropLast().last.map { output -> String? in
        guard case .event(let event) = output else { return nil }
        return event.data["code"]?.stringValue
      } == "recognition-failed")
  }

  nonisolated static let errorRows: [([WyomingEvent], WyomingProblem)] = [
    ([chunk(seconds: 0.1)], .audioBeforeStart(event: "audio-chunk")),
    ([WyomingEvent("audio-stop")], .audioBeforeStart(event: "audio-stop")),
    (
      [WyomingEvent("transcribe", data: ["name": .string("whisper")])],
      .unknownModel(name: "whisper", available: ["moonshine-base-en", "pocketsphinx-en-us"])
    ),
    ([WyomingEvent("transcribe", data: ["language": .string("de")])], .unsupportedLanguage("de")),
    (
      [audioStart, WyomingEvent("transcribe")],
      .unexpectedEvent(event: "transcribe", expected: .streaming)
    ),
    (
      [audioStart, audioStart],
      .unexpectedEvent(event: "audio-start", expected: .streaming)
    ),
    (
      [
        WyomingEvent(
          "audio-start",
          data: ["rate": .number(16000), "width": .number(5), "channels": .number(1)])
      ],
      .input(
        .formatOutOfRange(
          event: "audio-start", field: .width, value: 5, range: 1...4))
    ),
    (
      [audioStart, WyomingEvent("audio-chunk", payload: ByteBuffer(bytes: [1, 2, 3]))],
      .input(.partialFrames(bytes: 3, width: 2, channels: 1))
    ),
  ]

  @Test(arguments: errorRows)
  func badInputGetsItsErrorEventThenTheClose(
    _ events: [WyomingEvent], _ problem: WyomingProblem
  )
    async
  {
    let store = makeStore()
    store.exhaustivity = .off(showSkippedAssertions: false)
    await store.send(.stream(.start))
    for event in events { await store.send(.received(event)) }
    await store.skipReceivedActions(strict: false)
    #expect(Array(store.state.stream.outbox.suffix(2)) == [.event(problem.event), .close])
    #expect(store.state.stream.ending == .problem(problem))
    #expect(store.state.recognition == nil)
  }

  @Test func aMalformedEventClosesAtOnce() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await store.send(.malformed(.notJSON(part: "header line"))) {
      $0.stream.outbox = [.event(WyomingProblem.notJSON(part: "header line").event), .close]
      $0.stream.ending = .problem(.notJSON(part: "header line"))
    }
  }
}

/// Audio in any PCM format, as 16-bit mono samples.
struct WyomingAudioFormatTests {
  @Test func stereoIsAveragedAndWidthsAreScaledTo16Bits() throws {
    let stereo = WyomingAudioFormat(rate: 44_100, width: 2, channels: 2)
    // Frames (1000, 3000) and (-2000, 0).
    let payload = ByteBuffer(bytes: [0xE8, 0x03, 0xB8, 0x0B, 0x30, 0xF8, 0x00, 0x00])
    #expect(try stereo.monoSamples(payload) == [2000, -1000])
    let wide = WyomingAudioFormat(rate: 16_000, width: 4, channels: 1)
    #expect(try wide.monoSamples(ByteBuffer(bytes: [0xFF, 0xFF, 0x34, 0x12])) == [0x1234])
    let narrow = WyomingAudioFormat(rate: 8_000, width: 1, channels: 1)
    #expect(try narrow.monoSamples(ByteBuffer(bytes: [0x80, 0x7F])) == [-32768, 0x7F00])
  }
}
