import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Logging
import SpeechClient
import Testing

@testable import TranscribeServer

/// A real WebSocket stream's log lines: its id, endpoint and client address on each, one line at
/// the start and one at the end with the audio decoded and how it ended; never the token.
@Suite struct StreamLogTests {
  @Test func streamLogsOneStartAndOneEndLineWithItsMetadata() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, token: AccessToken("s3cret")),
      logger: recorder.logger(level: .info)
    ) { .lorem() }
    _ = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(
        client, path: "/?token=s3cret", VoskTestClient.silence(seconds: 1) + [VoskTestClient.eof])
    }
    let session = recorder.lines.filter { $0.metadata["session"] != nil }
    #expect(session.map(\.message) == ["session started", "session ended"])
    let started = try #require(session.first)
    let ended = try #require(session.last)
    #expect(started.metadata["session"] == ended.metadata["session"])
    #expect(started.metadata["endpoint"] == "/")
    #expect(started.metadata["remote"]?.hasPrefix("127.0.0.1:") == true)
    #expect(ended.metadata["outcome"] == "finished")
    #expect(ended.metadata["audio_seconds"] == "1.00")
    for line in recorder.lines {
      #expect(!line.message.contains("s3cret"))
      #expect(!line.metadata.values.contains { $0.contains("s3cret") })
    }
  }

  @Test func streamTurnedAwayAtCapacityIsAWarning() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessions: 1),
      logger: recorder.logger(level: .info)
    ) { .lorem() }
    let permit = try #require(server.sessions.acquire())
    defer { permit.release() }
    let transcript = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(client, [VoskTestClient.eof])
    }
    #expect(transcript.closeCode == 1013)
    let warnings = recorder.lines.filter { $0.level == .warning }
    #expect(warnings.map(\.message) == ["session rejected"])
    #expect(warnings.first?.metadata["reason"] == "capacity")
    #expect(warnings.first?.metadata["remote"]?.hasPrefix("127.0.0.1:") == true)
  }
}

extension StreamLogTests {
  @Test func httpRequestsAreLoggedWithTheClientsAddress() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0), logger: recorder.logger(level: .debug)
    ) { .lorem() }
    try await server.makeApplication().test(.live) { client in
      try await client.execute(uri: "/readyz", method: .get) { _ in }
    }
    let request = try #require(recorder.lines.first { $0.message.hasPrefix("GET /readyz") })
    #expect(request.level == .debug)
    #expect(request.metadata["endpoint"] == "/readyz")
    #expect(request.metadata["remote"]?.hasPrefix("127.0.0.1:") == true)
  }
}

extension StreamLogTests {
  @Test func streamRefusedForItsTokenIsAWarningWithoutTheToken() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, token: AccessToken("s3cret")),
      logger: recorder.logger(level: .info)
    ) { .lorem() }
    try await server.makeApplication().test(.live) { client in
      try await client.execute(
        uri: "/?token=wrong-guess", method: .get, headers: WebSocketTokenTests.upgradeHeaders
      ) { response in
        #expect(response.status == .unauthorized)
      }
    }
    let warning = try #require(recorder.lines.first { $0.message == "session rejected" })
    #expect(warning.level == .warning)
    #expect(warning.metadata["reason"] == "token")
    #expect(warning.metadata["endpoint"] == "/")
    #expect(warning.metadata["remote"]?.hasPrefix("127.0.0.1:") == true)
    for line in recorder.lines {
      #expect(!line.message.contains("wrong-guess"))
      #expect(!line.metadata.values.contains { $0.contains("wrong-guess") })
    }
  }
}
