import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import SpeechClient
import Testing

@testable import TranscribeServer

/// With `--token`, a WebSocket upgrade needs `Authorization: Bearer TOKEN` or `?token=TOKEN`.
@Suite struct WebSocketTokenTests {
  static var server: TranscriptionServer {
    VoskWebSocketTests.server { $0.token = AccessToken("s3cret") }
  }

  static let upgradeHeaders: HTTPFields = [
    .upgrade: "websocket", .connection: "Upgrade",
    .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==", .secWebSocketVersion: "13",
  ]

  @Test func anUpgradeWithoutTheTokenIsRefusedWith401() async throws {
    try await Self.server.makeApplication().test(.live) { client in
      try await client.execute(uri: "/", method: .get, headers: Self.upgradeHeaders) {
        response in
        #expect(response.status == .unauthorized)
        #expect(response.headers[.wwwAuthenticate] == "Bearer")
        #expect(!String(buffer: response.body).contains("s3cret"))
      }
    }
  }

  @Test func anUpgradeWithAWrongTokenIsRefusedWith401() async throws {
    var wrong = Self.upgradeHeaders
    wrong[.authorization] = "Bearer nope"
    let headers = wrong
    try await Self.server.makeApplication().test(.live) { client in
      try await client.execute(uri: "/?token=nope", method: .get, headers: headers) {
        response in
        #expect(response.status == .unauthorized)
      }
    }
  }

  @Test func everyRefusalSaysTheSameSentenceInTheShapeItsClientReads() async throws {
    let recorder = LogRecorder()
    var server = Self.server
    server.logger = recorder.logger(level: .info)
    try await server.makeApplication().test(.live) { client in
      var bodies: [String] = []
      try await client.execute(uri: "/metrics", method: .get) { response in
        #expect(response.status == .unauthorized)
        #expect(response.headers[.wwwAuthenticate] == "Bearer")
        #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
        bodies.append(String(buffer: response.body))
      }
      try await client.execute(uri: "/v1/models", method: .get) { response in
        #expect(response.status == .unauthorized)
        #expect(response.headers[.wwwAuthenticate] == "Bearer")
        let error = try openAIError(response.body)
        #expect(error.code == "invalid_api_key")
        bodies.append(error.message + "\n")
      }
      // Last: the refused upgrade closes its connection.
      try await client.execute(uri: "/", method: .get, headers: Self.upgradeHeaders) {
        response in
        #expect(response.status == .unauthorized)
        #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
        bodies.append(String(buffer: response.body))
      }
      #expect(bodies == Array(repeating: TokenCheck.message + "\n", count: 3))
      #expect(TokenCheck.message.contains("Authorization: Bearer TOKEN"))
      #expect(TokenCheck.message.contains("?token=TOKEN"))
    }
    // Every refusal (`/metrics`, the REST route, the upgrade) is a rejected session, counted
    // and logged alike.
    let rejections = recorder.lines.filter { $0.message == "session rejected" }
    #expect(rejections.map { $0.metadata["endpoint"] } == ["/metrics", "/v1/models", "/"])
    #expect(rejections.allSatisfy { $0.metadata["reason"] == "token" })
    #expect(rejections.allSatisfy { $0.metadata["remote"]?.hasPrefix("127.0.0.1:") == true })
    #expect(
      server.metrics.exposition().contains(
        #"transcribe_rejected_sessions_total{reason="token"} 3"#))
  }

  @Test func anUpgradeAfterAnotherRequestOnTheConnectionIs400() async throws {
    try await VoskWebSocketTests.server().makeApplication().test(.live) { client in
      try await client.execute(uri: "/healthz", method: .get) { response in
        #expect(response.status == .ok)
      }
      try await client.execute(uri: "/", method: .get, headers: Self.upgradeHeaders) {
        response in
        #expect(response.status == .badRequest)
        #expect(String(buffer: response.body).contains("first request of its connection"))
      }
    }
  }

  @Test func aPlainRequestIsNotTheUpgradesBusiness() async throws {
    try await Self.server.makeApplication().test(.live) { client in
      try await client.execute(uri: "/healthz", method: .get) { response in
        #expect(response.status == .ok)
      }
    }
  }

  @Test func theBearerHeaderOpensTheStream() async throws {
    try await Self.server.makeApplication().test(.live) { client in
      let transcript = try await VoskTestClient.run(
        client, headers: [.authorization: "Bearer s3cret"],
        VoskTestClient.silence(seconds: 0.4) + [VoskTestClient.eof])
      #expect(transcript.objects.last?["text"] as? String == "lorem")
    }
  }

  @Test func theTokenQueryOpensTheStream() async throws {
    try await Self.server.makeApplication().test(.live) { client in
      let transcript = try await VoskTestClient.run(
        client, path: "/?token=s3cret",
        VoskTestClient.silence(seconds: 0.4) + [VoskTestClient.eof])
      #expect(transcript.objects.last?["text"] as? String == "lorem")
    }
  }

  @Test func withoutATokenConfiguredEveryUpgradeIsAllowed() async throws {
    let server = VoskWebSocketTests.server()
    try await server.makeApplication().test(.live) { client in
      let transcript = try await VoskTestClient.run(client, [VoskTestClient.eof])
      #expect(transcript.closeCode == 1000)
    }
  }
}
