import Foundation
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

@Suite struct ReadinessTests {
  /// A server whose `prepare` never finishes on its own, so each test sets the readiness it needs.
  private func makeServer(maxSessions: Int = 2, token: AccessToken? = nil) -> TranscriptionServer {
    TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessions: maxSessions, token: token),
      prepare: { try await Task.sleep(for: .seconds(3600)) }
    ) { .lorem() }
  }

  /// Asks `/readyz` and expects 503, `Retry-After: 5`, and a ready model with `status` and
  /// `active` of 2 session places.
  private func expectNotReady(
    _ client: some TestClientProtocol, _ status: ReadinessReport.Status, active: Int,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await client.execute(uri: "/readyz", method: .get) { response in
      #expect(response.status == .serviceUnavailable, sourceLocation: sourceLocation)
      #expect(response.headers[.retryAfter] == "5", sourceLocation: sourceLocation)
      let report = try decode(response)
      #expect(
        report
          == ReadinessReport(
            status: status, modelLoaded: true, sessions: .init(active: active, limit: 2),
            engines: ["pocketsphinx"]),
        sourceLocation: sourceLocation)
    }
  }

  private func decode(_ response: TestResponse) throws -> ReadinessReport {
    try JSONDecoder().decode(ReadinessReport.self, from: Data(buffer: response.body))
  }

  @Test func notReadyWhilePreparing() async throws {
    let server = makeServer()
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers[.retryAfter] == "1")
        #expect(response.headers[.contentType] == "application/json")
        let report = try decode(response)
        #expect(
          report
            == ReadinessReport(
              status: .preparing, modelLoaded: false, sessions: .init(active: 0, limit: 2),
              engines: ["pocketsphinx"]))
      }
    }
  }

  @Test func readyOncePreparedWithCapacityLeft() async throws {
    let server = makeServer()
    server.readiness.finishPreparing(with: .success(()))
    let permit = try #require(server.sessions.acquire())
    defer { permit.release() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.retryAfter] == nil)
        #expect(
          String(buffer: response.body)
            == #"{"engines":["pocketsphinx"],"model_loaded":true,"sessions":{"active":1,"limit":2},"#
            + #""status":"ready"}"# + "\n")
      }
    }
  }

  @Test func fullServerIsNotReadyAndSaysWhenToRetry() async throws {
    let server = makeServer(maxSessions: 2)
    server.readiness.finishPreparing(with: .success(()))
    let permits = [server.sessions.acquire(), server.sessions.acquire()]
    #expect(permits.allSatisfy { $0 != nil })
    try await server.makeApplication().test(.router) { client in
      try await expectNotReady(client, .full, active: 2)
      permits.forEach { $0?.release() }
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .ok)
      }
    }
  }

  @Test func everyDecoderBusyWithAPlaceFreeIsStuckUntilOneIsFree() async throws {
    var server = makeServer(maxSessions: 2)
    server.readiness.finishPreparing(with: .success(()))
    let stuck = Mutex(true)
    server.areDecodersStuck = { stuck.withLock { $0 } }
    #expect(ServerConfiguration().stuckDecoderAge == .seconds(10))
    try await server.makeApplication().test(.router) { client in
      try await expectNotReady(client, .stuck, active: 0)
      stuck.withLock { $0 = false }
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .ok)
      }
    }
  }

  @Test func failedPreparationStaysUnreadyWithoutRetryAfter() async throws {
    struct ModelMissing: Error {}
    let server = makeServer()
    server.readiness.finishPreparing(with: .failure(ModelMissing()))
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers[.retryAfter] == nil)
        let report = try decode(response)
        #expect(report.status == .failed)
        #expect(report.modelLoaded == false)
      }
    }
  }

  @Test func healthAndReadinessNeedNoToken() async throws {
    let server = makeServer(token: AccessToken("s3cret"))
    server.readiness.finishPreparing(with: .success(()))
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .ok)
      }
      try await client.execute(uri: "/healthz", method: .get) { response in
        #expect(response.status == .ok)
      }
    }
  }

  @Test func applicationRunsPrepareAndTurnsReady() async throws {
    let (gate, opener) = AsyncStream.makeStream(of: Void.self)
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0),
      prepare: { for await _ in gate { return } }
    ) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .serviceUnavailable)
      }
      opener.yield()
      // The service records the outcome right after `prepare` returns; give it turns to run.
      var turns = 0
      while server.readiness.state == .preparing, turns < 100_000 {
        await Task.yield()
        turns += 1
      }
      try await client.execute(uri: "/readyz", method: .get) { response in
        #expect(response.status == .ok)
        let report = try decode(response)
        #expect(report.modelLoaded)
      }
    }
  }
}
