import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import SpeechClient
import Testing

@testable import TranscribeServer

/// What a stream leaves behind: its place is free again, and the metrics count it.
@Suite struct WebSocketSessionLifecycleTests {
  /// Waits (up to five seconds, checking every 10 ms) until `condition` holds.
  static func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<500 {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
  }

  @Test func aClientThatLeavesWithoutTheEndFreesItsPlace() async throws {
    let server = VoskWebSocketTests.server { $0.maxSessions = 1 }
    try await server.makeApplication().test(.live) { client in
      let left = try await VoskTestClient.run(
        client, VoskTestClient.silence(seconds: 0.4), leavingAfterwards: true)
      #expect(left.replies.count == 2)
      #expect(await Self.eventually { server.sessions.activeCount == 0 })
      #expect(await Self.eventually { server.streams.count == 0 })
      let next = try await VoskTestClient.run(
        client, VoskTestClient.silence(seconds: 0.4) + [VoskTestClient.eof])
      #expect(next.objects.last?["text"] as? String == "lorem")
    }
  }

  @Test func metricsCountTheStreamItsAudioAndItsFinalResults() async throws {
    let server = VoskWebSocketTests.server()
    try await server.makeApplication().test(.live) { client in
      _ = try await VoskTestClient.run(
        client, VoskTestClient.silence(seconds: 3) + [VoskTestClient.eof])
    }
    let exposition = server.metrics.exposition()
    #expect(exposition.contains("transcribe_active_sessions 0"), "\(exposition)")
    // Labelled with the server's default engine (ServerConfiguration's: pocketsphinx).
    #expect(
      exposition.contains(#"transcribe_audio_seconds_decoded_total{engine="pocketsphinx"} 3"#),
      "\(exposition)")
    // The utterance at 2.4 s and the last words at the end.
    #expect(
      exposition.contains("transcribe_final_result_latency_seconds_count 2"), "\(exposition)")
  }
}
