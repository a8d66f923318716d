import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Testing

@testable import TranscribeServer

/// A message over the limit is answered in the shape of the protocol on its path, whether the
/// stream reads it (up to twice the limit) or the WebSocket layer refuses it unread: vosk's
/// `{"error": …}` on `/`, a Realtime `error` event on `/v1/realtime`.
@Suite struct OversizedMessageTests {
  /// Two mebibytes: what the server reads at most with the default limit of 1 MiB.
  static let twoMebibytes = 2 << 20

  @Test(arguments: [twoMebibytes, twoMebibytes + 1])
  func aVoskStreamGetsItsErrorThen1009(bytes: Int) async throws {
    let server = VoskWebSocketTests.server()
    try await server.makeApplication().test(.live) { client in
      let transcript = try await VoskTestClient.run(
        client, [.binary([UInt8](repeating: 0, count: bytes))])
      #expect(transcript.closeCode == 1009)
      let error = try #require(transcript.objects.last?["error"] as? String)
      #expect(error.contains("over the limit of 1048576 bytes"), "\(error)")
    }
  }

  @Test func aRealtimeMessageOfTwoMebibytesIsAnErrorEventAndTheSessionGoesOn() async throws {
    let server = VoskWebSocketTests.server()
    try await server.makeApplication().test(.live) { client in
      // The first reply is `session.created`; the next answers the message.
      let transcript = try await VoskTestClient.run(
        client, path: "/v1/realtime?intent=transcription",
        [.binary([UInt8](repeating: 0, count: Self.twoMebibytes)), .receive],
        leavingAfterwards: true)
      let events = transcript.objects
      #expect(events.map { $0["type"] as? String } == ["session.created", "error"])
      let error = try #require(events.last?["error"] as? [String: Any])
      #expect(error["code"] as? String == "message_too_large")
      #expect((error["message"] as? String)?.contains("1048576 bytes") == true, "\(error)")
      // The session went on: the client closed it.
      #expect(transcript.close == nil || transcript.closeCode == 1000)
    }
  }

  @Test func aRealtimeMessageTooLargeToReadIsAnErrorEventThen1009() async throws {
    let server = VoskWebSocketTests.server()
    try await server.makeApplication().test(.live) { client in
      let transcript = try await VoskTestClient.run(
        client, path: "/v1/realtime?intent=transcription",
        [.binary([UInt8](repeating: 0, count: Self.twoMebibytes + 1))])
      #expect(transcript.closeCode == 1009)
      let events = transcript.objects
      #expect(events.map { $0["type"] as? String } == ["session.created", "error"])
      // Not vosk's {"error": "…"}: a Realtime error event.
      #expect(events.allSatisfy { !($0["error"] is String) })
      let error = try #require(events.last?["error"] as? [String: Any])
      #expect(error["type"] as? String == "invalid_request_error")
      #expect(error["code"] as? String == "message_too_large")
      #expect((error["message"] as? String)?.contains("1048576 bytes") == true, "\(error)")
    }
  }
}
