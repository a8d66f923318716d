import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Testing

@testable import TranscribeServer

/// Web pages other than the server's own are refused with 403, on the WebSocket upgrade and on
/// every HTTP route; clients that are not browsers send no `Origin` and pass.
@Suite struct OriginTests {
  @Test func theServersOwnOriginAndAllowedOnesPassOthersDoNot() {
    let own = OriginCheck(allowed: [])
    #expect(own.allows(origin: nil, host: "127.0.0.1:2700"))
    #expect(own.allows(origin: "http://127.0.0.1:2700", host: "127.0.0.1:2700"))
    #expect(own.allows(origin: "https://Captions.Example", host: "captions.example"))
    #expect(own.allows(origin: "http://[::1]:2700", host: "[::1]:2700"))
    #expect(own.allows(origin: "ws://localhost", host: "localhost:2700"))
    #expect(!own.allows(origin: "http://127.0.0.2:2700", host: "127.0.0.1:2700"))
    #expect(!own.allows(origin: "http://localhost.evil.example", host: "localhost:2700"))
    #expect(!own.allows(origin: "http://evil.example", host: "127.0.0.1:2700"))
    #expect(!own.allows(origin: "null", host: "127.0.0.1:2700"))
    #expect(!own.allows(origin: "http://evil.example", host: nil))
    let listed = OriginCheck(allowed: ["https://captions.example/"])
    #expect(listed.allows(origin: "https://captions.example", host: "127.0.0.1:2700"))
    #expect(!listed.allows(origin: "http://captions.example", host: "127.0.0.1:2700"))
    #expect(OriginCheck(allowed: ["*"]).allows(origin: "http://evil.example", host: nil))
  }

  @Test func anUpgradeFromAnotherPageIs403() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0), logger: recorder.logger(level: .info)
    ) { .lorem() }
    var headers = WebSocketTokenTests.upgradeHeaders
    headers[.origin] = "http://evil.example"
    let evil = headers
    try await server.makeApplication().test(.live) { client in
      try await client.execute(uri: "/", method: .get, headers: evil) { response in
        #expect(response.status == .forbidden)
        #expect(String(buffer: response.body).contains("--allow-origin http://evil.example"))
      }
    }
    let rejection = try #require(recorder.lines.first { $0.message == "session rejected" })
    #expect(rejection.metadata["reason"] == "origin")
    #expect(
      server.metrics.exposition().contains(
        #"transcribe_rejected_sessions_total{reason="origin"} 1"#))
  }

  @Test func anUpgradeFromTheServersOwnPageStreams() async throws {
    let server = TranscriptionServer(configuration: ServerConfiguration(port: 0)) { .lorem() }
    try await server.makeApplication().test(.live) { client in
      let port = try #require(client.port)
      let transcript = try await VoskTestClient.run(
        client, headers: [.origin: "http://localhost:\(port)"],
        VoskTestClient.silence(seconds: 0.4) + [VoskTestClient.eof])
      #expect(transcript.objects.last?["text"] as? String == "lorem")
    }
  }

  @Test func anUploadFromAnotherPageIs403UnlessAllowed() async throws {
    for allowed in [[], ["http://evil.example"]] {
      var configuration = ServerConfiguration(port: 0)
      configuration.allowedOrigins = allowed
      let scripted = ScriptedSpeechClient()
      let server = TranscriptionServer(configuration: configuration) { scripted.client }
      try await server.makeApplication().test(.router) { client in
        try await client.execute(
          uri: "/v1/audio/transcriptions", method: .post,
          headers: [.contentType: MultipartBody.contentType, .origin: "http://evil.example"],
          body: MultipartBody.upload("AUDIO go")
        ) { response in
          if allowed.isEmpty {
            #expect(response.status == .forbidden)
            let error = try openAIError(response.body)
            #expect(error.code == "origin_not_allowed")
          } else {
            #expect(response.status != .forbidden)
          }
        }
      }
    }
  }
}
