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
