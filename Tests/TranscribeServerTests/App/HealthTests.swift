import Hummingbird
import HummingbirdTesting
import SpeechClient
import Testing

@testable import TranscribeServer

@Suite struct HealthTests {
  @Test func livenessAnswersOK() async throws {
    let server = TranscriptionServer(configuration: ServerConfiguration(port: 0)) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/healthz", method: .get) { response in
        #expect(response.status == .ok)
        #expect(String(buffer: response.body) == "ok\n")
      }
    }
  }
}
