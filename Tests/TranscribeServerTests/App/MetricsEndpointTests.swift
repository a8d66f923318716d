import Hummingbird
import HummingbirdTesting
import SpeechClient
import Testing

@testable import TranscribeServer

@Suite struct MetricsEndpointTests {
  @Test func metricsArePrometheusTextWithTheRecordedEvents() async throws {
    let server = TranscriptionServer(configuration: ServerConfiguration(port: 0)) { .lorem() }
    server.metrics.sessionStarted()
    server.metrics.decoded(audioSeconds: 2, processingSeconds: 1, engine: "moonshine")
    server.metrics.sessionRejected(.capacity)
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/metrics", method: .get) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        let lines = String(buffer: response.body).split(separator: "\n").map(String.init)
        #expect(lines.contains("transcribe_active_sessions 1.0"))
        #expect(lines.contains(#"transcribe_audio_seconds_decoded_total{engine="moonshine"} 2.0"#))
        #expect(
          lines.contains(#"transcribe_audio_seconds_decoded_total{engine="pocketsphinx"} 0"#))
        #expect(lines.contains(#"transcribe_rejected_sessions_total{reason="capacity"} 1"#))
        #expect(
          lines.contains(#"transcribe_real_time_factor_bucket{engine="moonshine",le="0.5"} 1"#))
        #expect(
          lines.allSatisfy { $0.hasPrefix("# TYPE transcribe_") || $0.hasPrefix("transcribe_") })
      }
    }
  }

  @Test func metricsNeedTheTokenWhenTheServerHasOne() async throws {
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, token: AccessToken("s3cret"))
    ) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/metrics", method: .get) { response in
        #expect(response.status == .unauthorized)
        #expect(response.headers[.wwwAuthenticate] == "Bearer")
        #expect(!String(buffer: response.body).contains("transcribe_"))
      }
      try await client.execute(
        uri: "/metrics", method: .get, headers: [.authorization: "Bearer wrong"]
      ) { response in
        #expect(response.status == .unauthorized)
      }
      try await client.execute(
        uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cret"]
      ) { response in
        #expect(response.status == .ok)
        #expect(String(buffer: response.body).contains("transcribe_active_sessions 0"))
      }
    }
  }
}
