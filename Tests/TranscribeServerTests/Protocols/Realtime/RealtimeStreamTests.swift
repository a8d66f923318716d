import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// The Realtime host without a socket: messages come from a stream the test feeds, and what
/// the host writes is collected. The session core is real, over the lorem client, which hears
/// one word per 0.3 s of pushed audio.
@Suite struct RealtimeStreamTests {
  final class Written: Sendable {
    private let frames = Mutex<[RealtimeStream.Frame]>([])
    var all: [RealtimeStream.Frame] { frames.withLock { $0 } }
    /// The events written, parsed.
    var events: [[String: Any]] {
      all.compactMap {
        guard case .text(let text) = $0 else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
      }
    }
    func append(_ frame: RealtimeStream.Frame) { frames.withLock { $0.append(frame) } }
  }

  let recorder = LogRecorder()

  func makeCore(maxSessions: Int = 2) -> SessionCore {
    SessionCore(
      configuration: ServerConfiguration(maxSessions: maxSessions),
      logger: recorder.logger(level: .info), recognizers: Recognizers { .lorem() })
  }

  func serve(
    _ messages: [WebSocketMessage], on core: SessionCore, endingWith failure: (any Error)? = nil
  ) async -> (written: Written, thrown: (any Error)?) {
    let (stream, continuation) = AsyncThrowingStream<WebSocketMessage, any Error>.makeStream()
    for message in messages { continuation.yield(message) }
    continuation.finish(throwing: failure)
    let written = Written()
    let host = RealtimeStream(
      core: core,
      client: RequestClient(address: "127.0.0.1:5000", connection: ClientConnection()))
    do {
      try await host.serve(VoskStreamTests.Messages(stream: stream)) { written.append($0) }
      return (written, nil)
    } catch {
      return (written, error)
    }
  }

  /// `input_audio_buffer.append` of `seconds` of 24 kHz silence.
  static func append(seconds: Double) -> WebSocketMessage {
    let audio = Data(count: Int(seconds * 24_000) * 2).base64EncodedString()
    return .text(#"{"type": "input_audio_buffer.append", "audio": "\#(audio)"}"#)
  }

  @Test func aCommittedItemIsTranscribedBeforeTheNextEventIsRead() async throws {
    let core = makeCore()
    let (written, thrown) = await serve(
      [
        .text(
          #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": null}}}}"#
        ),
        Self.append(seconds: 0.6), Self.append(seconds: 0.6),
        .text(#"{"type": "input_audio_buffer.commit"}"#),
      ], on: core)
    #expect(thrown == nil)
    let events = written.events
    let types = events.compactMap { $0["type"] as? String }
    #expect(types.first == "session.created")
    #expect(types.dropFirst().first == "session.updated")
    #expect(types.contains("input_audio_buffer.committed"))
    #expect(types.last == "conversation.item.input_audio_transcription.completed")
    // 1.2 s of audio: four words, in the deltas and in the transcript.
    let words = SpeechClient.loremWords.prefix(4).joined(separator: " ")
    let completed = try #require(events.last)
    #expect(completed["transcript"] as? String == words)
    let deltas = events.filter {
      $0["type"] as? String == "conversation.item.input_audio_transcription.delta"
    }
    #expect(deltas.compactMap { $0["delta"] as? String }.joined() == words)
    let committed = try #require(
      events.first { $0["type"] as? String == "input_audio_buffer.committed" })
    #expect(committed["item_id"] as? String == completed["item_id"] as? String)
    // Every event has its own id.
    let ids = events.compactMap { $0["event_id"] as? String }
    #expect(Set(ids).count == events.count)
    let session = try #require(events.first?["session"] as? [String: Any])
    #expect((session["id"] as? String)?.hasPrefix("sess_") == true)
    // The client left without a close from the server; the session is counted and logged.
    #expect(!written.all.contains { if case .close = $0 { true } else { false } })
    #expect(core.sessions.activeCount == 0)
    #expect(core.streams.count == 0)
    let exposition = core.metrics.exposition()
    #expect(exposition.contains(#"transcribe_protocol_sessions_total{protocol="realtime"} 1"#))
    #expect(exposition.contains(#"transcribe_protocol_final_latency_seconds"#))
    let ended = recorder.lines.last { $0.message == "session ended" }
    #expect(ended?.metadata["outcome"] == "client_closed")
    #expect(ended?.metadata["endpoint"] == "/v1/realtime")
    #expect(ended?.metadata["audio_seconds"] == "1.20")
  }

  @Test func aBadEventIsAnsweredAndCountedAndTheSessionGoesOn() async {
    let core = makeCore()
    let (written, thrown) = await serve(
      [.text("{not json"), .text(#"{"type": "input_audio_buffer.clear"}"#)], on: core)
    #expect(thrown == nil)
    #expect(
      written.events.compactMap { $0["type"] as? String } == [
        "session.created", "error", "input_audio_buffer.cleared",
      ])
    #expect(
      core.metrics.exposition().contains(
        #"transcribe_protocol_errors_total{protocol="realtime",code="invalid_json"} 1"#))
  }

  @Test func aSessionPastTheLimitIsTurnedAwayWithAnErrorEventAnd1013() async throws {
    let core = makeCore(maxSessions: 1)
    let first = try core.admit(.stream, endpoint: "/", remoteAddress: nil) {}
    defer { first.end(.finished, audioSeconds: 0) }
    let (written, thrown) = await serve([Self.append(seconds: 0.1)], on: core)
    #expect(thrown == nil)
    let error = try #require(written.events.first?["error"] as? [String: Any])
    #expect(error["code"] as? String == "server_busy")
    #expect(error["type"] as? String == "server_error")
    #expect(written.all.last == .close(.session(.busy)))
    #expect(WebSocketSessionError.session(.busy).closeCode == 1013)
  }

  @Test func aFailureToReadIsThrownForTheProtocolLayerToClose() async {
    struct FrameTooLarge: Error {}
    let core = makeCore()
    let (written, thrown) = await serve([], on: core, endingWith: FrameTooLarge())
    #expect(thrown is FrameTooLarge)
    #expect(written.events.compactMap { $0["type"] as? String } == ["session.created"])
    #expect(core.sessions.activeCount == 0)
  }
}
