import Foundation
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Testing

@testable import TranscribeServer

/// What the server does with connections that are not requests it can serve: bytes that are not
/// HTTP/1.1, headers or URLs past its limits, headers that never finish, idle connections, more
/// connections than it can hold, and WebSocket frames a client did not mask.
@Suite struct ConnectionLimitsTests {
  /// A server for these tests (preview client, short header timeout).
  func server(
    headerTimeout: Duration = .seconds(15), maxConnections: Int = 1000
  ) -> TranscriptionServer {
    var configuration = ServerConfiguration(port: 0)
    configuration.requestHeaderTimeout = headerTimeout
    configuration.maxConnections = maxConnections
    return TranscriptionServer(configuration: configuration) { .lorem() }
  }

  @Test(arguments: [
    ("HELLO\r\n\r\n", "400"),
    ("GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", "505"),
    ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "400"),
    ("POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Length: ab\r\n\r\n", "400"),
    (
      "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
        + "Content-Length: 2\r\n\r\nab", "400"
    ),
  ])
  func whatIsNotHTTPGetsAStatusAndTheConnectionCloses(
    request: String, status: String
  )
    async throws
  {
    let recorder = LogRecorder()
    let server = TranscriptionServer.recorded(by: recorder) { _ in }
    try await server.makeApplication().test(.live) { client in
      let connection = try RawConnection(port: try #require(client.port))
      defer { connection.close() }
      connection.send(Array(request.utf8))
      let answer = connection.receiveUntilClosed(seconds: 5)
      #expect(answer.isClosed, "still open after: \(answer.text)")
      #expect(answer.text.hasPrefix("HTTP/1.1 \(status) "), "\(answer.text)")
      #expect(answer.text.contains("Connection: close"))
    }
    // The client's mistake, answered and closed on purpose: nothing at error level.
    #expect(!recorder.lines.contains { $0.level >= .error }, "\(recorder.lines)")
  }

  @Test func headersPastTheLimitGet431AndALongURL414() async throws {
    try await server().makeApplication().test(.live) { client in
      let port = try #require(client.port)
      let headers = try RawConnection(port: port)
      defer { headers.close() }
      headers.send(
        Array(
          ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 90_000)
            + "\r\n\r\n").utf8))
      let tooLarge = headers.receiveUntilClosed(seconds: 5)
      #expect(tooLarge.text.hasPrefix("HTTP/1.1 431 "), "\(tooLarge.text.prefix(200))")
      #expect(tooLarge.isClosed)

      let url = try RawConnection(port: port)
      defer { url.close() }
      url.send(
        Array(
          ("GET /healthz?" + String(repeating: "a", count: 80_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
            .utf8))
      let tooLong = url.receiveUntilClosed(seconds: 5)
      #expect(tooLong.text.hasPrefix("HTTP/1.1 414 "), "\(tooLong.text.prefix(200))")
      #expect(tooLong.text.contains("8192"))
      #expect(tooLong.isClosed)
    }
  }

  @Test func headersThatNeverFinishGet408AndAnIdleConnectionCloses() async throws {
    try await server(headerTimeout: .milliseconds(300)).makeApplication().test(.live) { client in
      let port = try #require(client.port)
      let partial = try RawConnection(port: port)
      defer { partial.close() }
      partial.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n".utf8))
      let timedOut = partial.receiveUntilClosed(seconds: 5)
      #expect(timedOut.text.hasPrefix("HTTP/1.1 408 "), "\(timedOut.text)")
      #expect(timedOut.isClosed)

      let silent = try RawConnection(port: port)
      defer { silent.close() }
      #expect(silent.receiveUntilClosed(seconds: 5).isClosed)

      // Between requests of a kept-alive connection too.
      let kept = try RawConnection(port: port)
      defer { kept.close() }
      kept.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
      let answer = kept.receiveUntilClosed(seconds: 5)
      #expect(answer.text.hasPrefix("HTTP/1.1 200 "), "\(answer.text)")
      #expect(answer.isClosed)
    }
  }

  @Test func aConnectionThatSendsNothingIsAClientsFaultLoggedAtInfoAndCounted() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer.recorded(by: recorder) {
      $0.requestHeaderTimeout = .milliseconds(300)
    }
    try await server.makeApplication().test(.live) { client in
      let port = try #require(client.port)
      let silent = try (0..<3).map { _ in try RawConnection(port: port) }
      defer { silent.forEach { $0.close() } }
      for connection in silent {
        let answer = connection.receiveUntilClosed(seconds: 5)
        #expect(answer.text.hasPrefix("HTTP/1.1 408 "), "\(answer.text)")
      }
      // (The test client's own idle connection may time out too.)
      try await waitUntil {
        recorder.lines.filter { $0.message == "connection closed before a request" }.count >= 3
      }
    }
    let closed = recorder.lines.filter { $0.message == "connection closed before a request" }
    #expect(closed.count >= 3)
    #expect(closed.allSatisfy { $0.metadata["reason"] == "header_timeout" && $0.level == .info })
    // Nothing at error level: the client's silence is not the server's fault.
    #expect(!recorder.lines.contains { $0.level >= .error }, "\(recorder.lines)")
    #expect(
      server.metrics.exposition().contains(
        #"transcribe_closed_connections_total{reason="header_timeout"} \#(closed.count)"#))
  }

  @Test func connectionsPastTheLimitGet503AndThePlaceComesBack() async throws {
    let server = server(maxConnections: 3)
    try await server.makeApplication().test(.live) { client in
      let port = try #require(client.port)
      let held = try (0..<3).map { _ in try RawConnection(port: port) }
      // Each is counted once the server has set it up.
      try await waitUntil { server.connections.current == 3 }
      let extra = try RawConnection(port: port)
      defer { extra.close() }
      let refused = extra.receiveUntilClosed(seconds: 5)
      #expect(refused.text.hasPrefix("HTTP/1.1 503 "), "\(refused.text)")
      #expect(refused.text.contains("3 connections"))
      #expect(refused.isClosed)
      held[0].close()
      try await waitUntil { server.connections.current == 2 }
      let next = try RawConnection(port: port)
      defer { next.close() }
      next.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
      #expect(next.receiveUntilClosed(seconds: 5).text.hasPrefix("HTTP/1.1 200 "))
      for connection in held.dropFirst() { connection.close() }
    }
  }

  @Test func anUnmaskedFrameFromAClientIsAProtocolError() async throws {
    try await server().makeApplication().test(.live) { client in
      let connection = try RawConnection(port: try #require(client.port))
      defer { connection.close() }
      connection.send(
        Array(
          ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            .utf8))
      let upgraded = connection.receive(until: { $0.contains("\r\n\r\n") }, seconds: 5)
      #expect(upgraded.text.hasPrefix("HTTP/1.1 101 "), "\(upgraded.text)")
      // A binary frame of four bytes, FIN set, no mask.
      connection.send([0x82, 0x04, 1, 2, 3, 4])
      let answer = connection.receiveUntilClosed(seconds: 5)
      let bytes = answer.bytes
      #expect(answer.isClosed)
      // First vosk's {"error": …} naming the problem, as every refusal of the stream's frames.
      #expect(answer.text.contains("a data frame from the client was not masked"), "\(answer.text)")
      // A close frame (0x88) whose code is 1002.
      let close = try #require(bytes.firstIndex(of: 0x88))
      #expect(bytes.count >= close + 4)
      #expect(bytes.count >= close + 4 && bytes[close + 2] == 0x03 && bytes[close + 3] == 0xEA)
    }
  }

  @Test func aClientThatNeverAnswersPingsIsClosedAndLoggedAsSuch() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer.recorded(by: recorder, level: .info) {
      $0.pingInterval = .milliseconds(200)
    }
    try await server.makeApplication().test(.live) { client in
      // A raw socket answers no ping.
      let connection = try RawConnection(port: try #require(client.port))
      defer { connection.close() }
      connection.send(Array(Self.upgradeRequest.utf8))
      let answer = connection.receiveUntilClosed(seconds: 5)
      #expect(answer.isClosed)
      #expect(answer.text.hasPrefix("HTTP/1.1 101 "))
      #expect(await recorder.wait(seconds: 5) { $0.message == "session ended" })
    }
    let ended = try #require(recorder.lines.first { $0.message == "session ended" })
    #expect(ended.metadata["outcome"] == "ping_timeout")
  }

  static let upgradeRequest =
    "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

  /// Waits (up to 5 s) for `condition`.
  func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition(), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(condition())
  }
}

extension RawConnection {
  /// What arrived, and whether the server closed the connection.
  struct Received {
    var bytes: [UInt8]
    var isClosed: Bool
    var text: String { String(decoding: bytes, as: UTF8.self) }
  }

  /// Reads until the server closes the connection or `seconds` pass.
  func receiveUntilClosed(seconds: Double) -> Received {
    receive(until: { _ in false }, seconds: seconds)
  }

  /// Reads until what arrived satisfies `done`, the server closes, or `seconds` pass.
  func receive(until done: (String) -> Bool, seconds: Double) -> Received {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while Date() < deadline {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
      guard poll(&poller, 1, min(left, 100)) >= 0 else { break }
      guard poller.revents != 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return Received(bytes: bytes, isClosed: true) }
      bytes += buffer[..<count]
      if done(String(decoding: bytes, as: UTF8.self)) { break }
    }
    return Received(bytes: bytes, isClosed: false)
  }
}
