import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// The stream host without a socket: messages come from a stream the test feeds, and what the
/// host writes is collected. The session core is real, over the lorem client, which hears one
/// word per 0.3 s of pushed audio.
@Suite struct VoskStreamTests {
  /// Messages for the host, counting how many it has asked for.
  struct Messages: AsyncSequence, Sendable {
    typealias Element = WebSocketMessage
    let stream: AsyncThrowingStream<WebSocketMessage, any Error>
    let reads = Reads()

    final class Reads: Sendable {
      private let count = Mutex(0)
      var value: Int { count.withLock { $0 } }
      func increment() { count.withLock { $0 += 1 } }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
      var base: AsyncThrowingStream<WebSocketMessage, any Error>.Iterator
      let reads: Reads

      mutating func next() async throws -> WebSocketMessage? {
        reads.increment()
        return try await base.next()
      }
    }

    func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(base: stream.makeAsyncIterator(), reads: reads)
    }
  }

  /// What the host wrote, and how many messages it had asked for when it wrote each.
  final class Written: Sendable {
    private let entries = Mutex<[(output: VoskSession.Output, reads: Int)]>([])
    var outputs: [VoskSession.Output] { entries.withLock { $0.map(\.output) } }
    var readsAtEachReply: [Int] {
      entries.withLock { entries in
        entries.compactMap { if case .reply = $0.output { $0.reads } else { nil } }
      }
    }
    func append(_ output: VoskSession.Output, reads: Int) {
      entries.withLock { $0.append((output, reads)) }
    }
  }

  let recorder = LogRecorder()

  func makeCore(maxSessions: Int = 2) -> SessionCore {
    SessionCore(
      configuration: ServerConfiguration(maxSessions: maxSessions),
      logger: recorder.logger(level: .info), recognizers: Recognizers { .lorem() })
  }

  /// Serves `messages` on `core` and returns what was written, and what the host threw.
  func serve(
    _ messages: [WebSocketMessage], on core: SessionCore, endingWith failure: (any Error)? = nil,
    connection: ClientConnection = ClientConnection()
  ) async -> (written: Written, thrown: (any Error)?) {
    let (stream, continuation) = AsyncThrowingStream<WebSocketMessage, any Error>.makeStream()
    for message in messages { continuation.yield(message) }
    continuation.finish(throwing: failure)
    let inbound = Messages(stream: stream)
    let written = Written()
    let host = VoskStream(
      core: core, logger: core.logger,
      client: RequestClient(address: "127.0.0.1:5000", connection: connection))
    do {
      try await host.serve(inbound) { output, _ in
        written.append(output, reads: inbound.reads.value)
      }
      return (written, nil)
    } catch {
      return (written, error)
    }
  }

  /// `seconds` of 16 kHz silence as one binary message.
  static func audio(seconds: Double) -> WebSocketMessage {
    .binary(ByteBuffer(bytes: [UInt8](repeating: 0, count: Int(seconds * 16_000) * 2)))
  }

  static let eof = WebSocketMessage.text(#"{"eof" : 1}"#)

  @Test func eachMessageIsAnsweredBeforeTheNextIsReadAndTheEndClosesNormally() async {
    let core = makeCore()
    let (written, thrown) = await serve(
      [.text(#"{"config": {"sample_rate": 16000}}"#)]
        + Array(repeating: Self.audio(seconds: 0.6), count: 4) + [Self.eof],
      on: core)
    #expect(thrown == nil)
    let outputs = written.outputs
    // Four audio messages and the end: five replies, then the close.
    #expect(outputs.count == 6)
    #expect(outputs.last == .close(nil))
    // 2.4 s of audio: eight words, one utterance, all of them in the replies.
    var words: [String] = []
    for case .reply(let reply) in outputs {
      switch reply {
      case .result(let segments): words += segments.map(\.substring)
      case .partial, .error: break
      }
    }
    #expect(words == Array(SpeechClient.loremWords.prefix(8)))
    // The config and the first message were read; each later message only after the reply to
    // the one before it was due (the host may ask for the next one as its reply goes out).
    for (index, reads) in written.readsAtEachReply.enumerated() {
      #expect(reads <= index + 3, "reply \(index + 1) written after \(reads) reads")
    }
    #expect(core.sessions.activeCount == 0)
    #expect(core.streams.count == 0)
    #expect(core.metrics.exposition().contains("transcribe_audio_seconds_decoded_total"))
    let ended = recorder.lines.last { $0.message == "session ended" }
    #expect(ended?.metadata["outcome"] == "finished")
    #expect(ended?.metadata["audio_seconds"] == "2.40")
  }

  /// A session needs no main actor: its reducer runs on the session's own store, and its
  /// effects send back to it, so a session served while the main actor is blocked still ends.
  @MainActor
  @Test func aSessionRunsToItsEndWhileTheMainActorIsBlocked() async {
    let core = makeCore()
    let ended = DispatchSemaphore(value: 0)
    let outputs = Mutex<[VoskSession.Output]>([])
    Task.detached { [self] in
      let (written, _) = await serve(
        [.text(#"{"config": {"sample_rate": 16000}}"#), Self.audio(seconds: 0.6), Self.eof],
        on: core)
      outputs.withLock { $0 = written.outputs }
      ended.signal()
    }
    // Blocks the main actor until the session is over.
    #expect(ended.wait(timeout: .now() + 30) == .success)
    #expect(outputs.withLock { $0.last } == .close(nil))
  }

  /// A speech client that reads every sample of its pushed audio as it comes, reporting how
  /// far it has got, and ends when the audio does: what it read is what reached the decoder.
  final class Decoder: Sendable {
    private let read = Mutex<[Int16]>([])
    var samples: [Int16] { read.withLock { $0 } }

    var client: SpeechClient {
      SpeechClient(
        requestAuthorization: { .authorized },
        startTask: { [self] request in
          let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
            .makeStream()
          guard case .pushed(let audio) = request.source else {
            continuation.finish()
            return stream
          }
          let task = Task {
            func result(isFinal: Bool) -> SpeechRecognitionResult {
              SpeechRecognitionResult(
                bestTranscription: Transcription(segments: []), isFinal: isFinal,
                progress: RecognitionProgress(audioDuration: audio.consumedDuration))
            }
            while let samples = await audio.next() {
              read.withLock { $0 += samples }
              continuation.yield(result(isFinal: false))
            }
            continuation.yield(result(isFinal: true))
            continuation.finish()
          }
          continuation.onTermination = { _ in task.cancel() }
          return stream
        },
        finishTask: {}, captureDevices: { [] })
    }
  }

  @Test func theAudioReachesTheDecoderWholeAndInTheOrderItWasSent() async {
    let decoder = Decoder()
    let core = SessionCore(
      configuration: ServerConfiguration(maxSessions: 1),
      logger: recorder.logger(level: .info), recognizers: Recognizers { decoder.client })
    // Forty messages of different lengths, each sample its message's number.
    let counts = (1...40).map { 160 * (1 + $0 % 7) }
    let messages = zip(1..., counts).map { number, count in
      WebSocketMessage.binary(
        ByteBuffer(bytes: (0..<count).flatMap { _ in [UInt8(number), 0] }))
    }
    let (written, thrown) = await serve(messages + [Self.eof], on: core)
    #expect(thrown == nil)
    #expect(written.outputs.last == .close(nil))
    let expected = zip(1..., counts).flatMap { number, count in
      [Int16](repeating: Int16(number), count: count)
    }
    #expect(decoder.samples.count == expected.count)
    #expect(decoder.samples == expected)
  }

  @Test func aClientThatLeavesGetsNothingMoreAndTheSessionEndsOnce() async {
    let core = makeCore()
    let (written, thrown) = await serve([Self.audio(seconds: 0.3)], on: core)
    #expect(thrown == nil)
    // The reply to the message may or may not have gone out; never a close.
    #expect(!written.outputs.contains { if case .close = $0 { true } else { false } })
    #expect(core.sessions.activeCount == 0)
    let ends = recorder.lines.filter { $0.message == "session ended" }
    #expect(ends.count == 1)
    #expect(ends.first?.metadata["outcome"] == "client_closed")
  }

  @Test func aFailureToReadIsThrownForTheProtocolLayerToClose() async {
    struct FrameTooLarge: Error {}
    let core = makeCore()
    let (written, thrown) = await serve([], on: core, endingWith: FrameTooLarge())
    #expect(thrown is FrameTooLarge)
    #expect(written.outputs.isEmpty)
    #expect(core.sessions.activeCount == 0)
  }

  @Test func aStreamPastTheLimitIsTurnedAwayWith1013AfterItsFirstMessage() async throws {
    let core = makeCore(maxSessions: 1)
    let first = try core.admit(.stream, endpoint: "/", remoteAddress: nil) {}
    defer { first.end(.finished, audioSeconds: 0) }
    let (written, thrown) = await serve([Self.audio(seconds: 0.1)], on: core)
    #expect(thrown == nil)
    let error = WebSocketSessionError(AdmissionRefusal.capacity)
    #expect(written.outputs == [.reply(.error(error.message)), .close(error)])
    #expect(error.closeCode == 1013)
  }
}
