import Clocks
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature
import Synchronization
import Testing

@testable import TranscribeServer

/// The Wyoming host without a socket: events in from a stream, bytes out through a closure,
/// over a session core with the lorem client (one word per 0.3 s of audio, eight to an
/// utterance).
@Suite struct WyomingConnectionTests {
  /// What the connection wrote, as events.
  final class Written: Sendable {
    private let bytes = Mutex(ByteBuffer())

    func append(_ buffer: ByteBuffer) {
      bytes.withLock { _ = $0.writeImmutableBuffer(buffer) }
    }

    var events: [WyomingEvent] {
      var buffer = bytes.withLock { $0 }
      var parser = WyomingFrameParser(limits: WyomingSettings())
      var events: [WyomingEvent] = []
      while let event = try? parser.next(from: &buffer) { events.append(event) }
      return events
    }
  }

  static func core(maxSessions: Int = 2, recorder: LogRecorder = LogRecorder()) -> SessionCore {
    SessionCore(
      configuration: ServerConfiguration(maxSessions: maxSessions),
      logger: recorder.logger(level: .info), recognizers: Recognizers { .lorem() })
  }

  /// Runs a connection over `events`, then the end of the client's sending: at once, or once
  /// the connection has written an event of type `finishAfter`.
  static func run(
    _ core: SessionCore, _ events: [WyomingEvent], finishAfter: String? = nil
  ) async -> [WyomingEvent] {
    let (inbound, continuation) = AsyncStream.makeStream(of: WyomingInbound.self)
    for event in events { continuation.yield(.event(event)) }
    if finishAfter == nil { continuation.finish() }
    let written = Written()
    await WyomingConnection(core: core, remoteAddress: "127.0.0.1:1").run(inbound: inbound) {
      written.append($0)
      if written.events.contains(where: { $0.type == finishAfter }) { continuation.finish() }
    }
    return written.events
  }

  static func chunk(seconds: Double) -> WyomingEvent {
    WyomingEvent(
      "audio-chunk",
      data: ["rate": .number(16000), "width": .number(2), "channels": .number(1)],
      payload: ByteBuffer(bytes: [UInt8](repeating: 0, count: Int(seconds * 16_000) * 2)))
  }

  static let audioStart = WyomingEvent(
    "audio-start", data: ["rate": .number(16000), "width": .number(2), "channels": .number(1)])

  @Test func homeAssistantsSequenceIsAnsweredAndItsPlaceGivenBack() async {
    let recorder = LogRecorder()
    let core = Self.core(recorder: recorder)
    let events = await Self.run(
      core,
      [
        WyomingEvent("transcribe", data: ["language": .string("en")]), Self.audioStart,
        Self.chunk(seconds: 0.5), Self.chunk(seconds: 0.5), WyomingEvent("audio-stop"),
      ])
    #expect(events.first?.type == "transcript-start")
    #expect(events.suffix(2).map(\.type) == ["transcript", "transcript-stop"])
    #expect(events.dropLast().last?.data["text"] == .string("lorem ipsum dolor"))
    #expect(core.sessions.activeCount == 0)
    #expect(core.streams.count == 0)
    let metrics = core.metrics.exposition()
    #expect(metrics.contains(#"transcribe_protocol_sessions_total{protocol="wyoming"} 1"#))
    #expect(
      metrics.contains(#"transcribe_protocol_final_latency_seconds_count{protocol="wyoming"} 1"#))
    let ended = recorder.lines.last { $0.message == "session ended" }
    #expect(ended?.metadata["outcome"] == "finished")
    #expect(ended?.metadata["endpoint"] == "wyoming")
  }

  @Test func decodedAudioAndTheRealTimeFactorAreCountedWithTheWyomingLabel() async {
    let core = Self.core()
    // Two connections, one command each: 1 s, then 0.6 s of audio.
    for seconds in [[0.5, 0.5], [0.3, 0.3]] {
      let events = await Self.run(
        core,
        [WyomingEvent("transcribe"), Self.audioStart] + seconds.map { Self.chunk(seconds: $0) }
          + [WyomingEvent("audio-stop")])
      #expect(events.filter { $0.type == "transcript" }.count == 1)
    }
    let metrics = core.metrics.exposition()
    func value(_ series: String) -> Double? {
      metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        .flatMap { Double($0.dropFirst(series.count + 1)) }
    }
    let wyoming = value(#"transcribe_protocol_audio_seconds_decoded_total{protocol="wyoming"}"#)
    #expect(wyoming.map { abs($0 - 1.6) < 1e-9 } == true, "\(metrics)")
    #expect(value(#"transcribe_protocol_real_time_factor_count{protocol="wyoming"}"#) == 2)
    // The engine's series too, as the vosk protocol counts them.
    let engine = value(#"transcribe_audio_seconds_decoded_total{engine="pocketsphinx"}"#)
    #expect(engine.map { abs($0 - 1.6) < 1e-9 } == true)
    #expect(value(#"transcribe_real_time_factor_count{engine="pocketsphinx"}"#) == 2)
  }

  @Test func theProcessingTimeIsHowLongAudioWaitedForTheDecoder() {
    var busy = DecoderBusyTime()
    var state = WyomingSession.State()
    state.utterance = .init(
      recognition: SpeechRecognition.State(
        request: SpeechRecognitionRequest(source: .pushed(PushedAudio()))),
      format: WyomingAudioFormat(rate: 16_000, width: 2, channels: 1))
    let start = ContinuousClock.now
    busy.observe(state, at: start)
    // A chunk waits for the decoder for 0.3 s, then nothing waits for a second.
    state.utterance?.pushedSamples = 1_600
    busy.observe(state, at: start + .seconds(1))
    state.utterance?.pushedSamples = 0
    busy.observe(state, at: start + .milliseconds(1_300))
    busy.observe(state, at: start + .milliseconds(2_300))
    #expect(busy.processing == .milliseconds(300))
  }

  @Test func aTrickleOfTinyChunksEndsWithTooLittleAudioCountedAndLogged() async throws {
    let recorder = LogRecorder()
    let clock = TestClock()
    let core = {
      var core = Self.core(recorder: recorder)
      core.clock = clock
      return core
    }()
    let (inbound, continuation) = AsyncStream.makeStream(of: WyomingInbound.self)
    let sample = WyomingEvent("audio-chunk", payload: ByteBuffer(bytes: [0, 0]))
    for event in [Self.audioStart, sample] { continuation.yield(.event(event)) }
    let written = Written()
    let (asked, askedContinuation) = AsyncStream.makeStream(of: Void.self)
    let watched = WatchedEvents(base: inbound, after: 2) { askedContinuation.yield() }
    let connection = Task {
      await WyomingConnection(core: core, remoteAddress: nil).run(inbound: watched) {
        written.append($0)
      }
    }
    var askedIterator = asked.makeAsyncIterator()
    await askedIterator.next()
    // The idle time passes (again, in case its timer had not started sleeping yet), bounded.
    for _ in 0..<100 where !written.events.contains(where: { $0.type == "error" }) {
      await clock.advance(by: .seconds(30))
      try await Task.sleep(for: .milliseconds(20))
    }
    await connection.value
    continuation.finish()
    let error = written.events.last
    #expect(error?.type == "error")
    #expect(error?.data["code"] == .string("too-little-audio"))
    #expect(error?.data["text"]?.stringValue?.hasPrefix("too little audio: 6.25e-05 s") == true)
    let metrics = core.metrics.exposition()
    #expect(metrics.contains(#"transcribe_ended_sessions_total{outcome="too_little_audio"} 1"#))
    #expect(
      metrics.contains(
        #"transcribe_protocol_errors_total{protocol="wyoming",code="too-little-audio"} 1"#))
    let ended = recorder.lines.last { $0.message == "session ended" }
    #expect(ended?.metadata["outcome"] == "too_little_audio")
  }

  @Test func theEndOfAnUtteranceEndsTheCommandWithoutAudioStop() async {
    let core = Self.core()
    // 3 s of audio: the lorem client ends its first utterance at the eighth word (2.4 s).
    let events = await Self.run(
      core, [Self.audioStart] + (0..<6).map { _ in Self.chunk(seconds: 0.5) },
      finishAfter: "transcript-stop")
    let transcript = events.first { $0.type == "transcript" }
    #expect(
      transcript?.data["text"] == .string("lorem ipsum dolor sit amet consectetur adipiscing elit")
    )
    #expect(events.last?.type == "transcript-stop")
  }

  @Test func aClientThatStopsSendingMidCommandGetsTheTranscriptOfItsAudio() async {
    let core = Self.core()
    // 0.9 s of audio, then the client closes its side without audio-stop.
    let events = await Self.run(core, [Self.audioStart, Self.chunk(seconds: 0.9)])
    #expect(events.dropLast().last?.data["text"] == .string("lorem ipsum dolor"))
    #expect(events.last?.type == "transcript-stop")
    #expect(core.sessions.activeCount == 0)
  }

  @Test func pastTheSessionLimitTheClientGetsABusyError() async throws {
    let core = Self.core(maxSessions: 1)
    let place = try #require(core.sessions.acquire())
    let events = await Self.run(core, [WyomingEvent("describe")])
    place.release()
    #expect(events == [WyomingProblem.session(.busy).event])
    #expect(
      core.metrics.exposition().contains(
        #"transcribe_protocol_errors_total{protocol="wyoming",code="busy"} 1"#))
    #expect(
      core.metrics.exposition().contains(
        #"transcribe_rejected_sessions_total{reason="capacity"} 1"#))
  }

  @Test func aShutdownDeliversTheTranscriptSoFarThenTheError() async {
    let core = Self.core()
    let (inbound, continuation) = AsyncStream.makeStream(of: WyomingInbound.self)
    for event in [Self.audioStart, Self.chunk(seconds: 0.7)] { continuation.yield(.event(event)) }
    let written = Written()
    // The host asks for a third event once it has handled the first two.
    let (asked, askedContinuation) = AsyncStream.makeStream(of: Void.self)
    let watched = WatchedEvents(base: inbound, after: 2) { askedContinuation.yield() }
    async let connection: Void = WyomingConnection(core: core, remoteAddress: nil).run(
      inbound: watched
    ) { written.append($0) }
    // The drain waits for the session, which delivers its last words first.
    var askedIterator = asked.makeAsyncIterator()
    await askedIterator.next()
    await core.drain()
    await connection
    continuation.finish()
    let events = written.events
    #expect(events.suffix(3).map(\.type) == ["transcript", "transcript-stop", "error"])
    #expect(events.last?.data["code"] == .string("shutting-down"))
    #expect(core.sessions.activeCount == 0)
  }
}

/// A sequence of events that calls `onAsked` when the element after the first `after` is asked
/// for: the host has handled those by then.
struct WatchedEvents<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element == WyomingInbound {
  typealias Element = WyomingInbound
  let base: Base
  let after: Int
  let onAsked: @Sendable () -> Void

  struct AsyncIterator: AsyncIteratorProtocol {
    var base: Base.AsyncIterator
    let after: Int
    let onAsked: @Sendable () -> Void
    var count = 0

    mutating func next() async -> WyomingInbound? {
      if count == after { onAsked() }
      count += 1
      return try? await base.next()
    }
  }

  func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: base.makeAsyncIterator(), after: after, onAsked: onAsked)
  }
}
