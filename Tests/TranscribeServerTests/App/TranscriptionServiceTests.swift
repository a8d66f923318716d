import Foundation
import Hummingbird
import HummingbirdWSClient
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import TranscribeServer

/// The service's lifecycle: it tells the port once listening, and a graceful shutdown lets
/// running streams deliver their last words before they close with 1001.
@Suite struct TranscriptionServiceTests {
  @Test func gracefulShutdownDeliversTheLastWordsThenClosesWith1001() async throws {
    let server = VoskWebSocketTests.server()
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let service = TranscriptionService(server: server) { port in
      portContinuation.yield(port)
    }
    let group = ServiceGroup(
      configuration: .init(services: [service], logger: Logger(label: "test")))
    let replies = Mutex<[String]>([])
    let close = try await withThrowingTaskGroup(of: WebSocketCloseFrame?.self) { tasks in
      tasks.addTask {
        try await group.run()
        return nil
      }
      var portIterator = ports.makeAsyncIterator()
      let port = try #require(await portIterator.next())
      #expect(port > 0)
      let close = try await WebSocketClient.connect(
        url: "ws://127.0.0.1:\(port)/", logger: Logger(label: "test")
      ) { inbound, outbound, _ in
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        let chunk = ByteBuffer(bytes: [UInt8](repeating: 0, count: 6_400))
        // 0.6 s: "lorem ipsum" heard, not finished as an utterance.
        for _ in 0..<3 {
          try await outbound.write(.binary(chunk))
          _ = try await messages.next()
        }
        await group.triggerGracefulShutdown()
        while let message = try await messages.next() {
          if case .text(let text) = message { replies.withLock { $0.append(text) } }
        }
      }
      try await tasks.waitForAll()
      return close
    }
    let texts = replies.withLock { $0 }
    #expect(texts.count == 2)
    #expect(texts.first?.contains(#""text":"lorem ipsum""#) == true)
    #expect(texts.last?.contains("shutting down") == true)
    #expect(close.map { UInt16(webSocketErrorCode: $0.closeCode) } == 1001)
    #expect(server.streams.count == 0)
  }

  @Test func connectionsThatSentNoRequestAreClosedAtOnceOnShutdown() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer.recorded(by: recorder) {
      // Far beyond the test: a shutdown that waited for it would never end in time.
      $0.requestHeaderTimeout = .seconds(3600)
    }
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let service = TranscriptionService(server: server) { port in
      portContinuation.yield(port)
    }
    let group = ServiceGroup(
      configuration: .init(services: [service], logger: Logger(label: "test")))
    let finished = try await withThrowingTaskGroup(of: Bool.self) { tasks in
      tasks.addTask {
        try await group.run()
        return true
      }
      tasks.addTask {
        try await Task.sleep(for: .seconds(30))
        return false
      }
      var portIterator = ports.makeAsyncIterator()
      let port = try #require(await portIterator.next())
      let silent = try (0..<3).map { _ in try RawConnection(port: port) }
      defer { silent.forEach { $0.close() } }
      // The server has them once a request on another connection has been answered.
      let probe = try RawConnection(port: port)
      probe.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
      #expect(probe.receiveUntilClosed(seconds: 10).text.hasPrefix("HTTP/1.1 200 "))
      probe.close()
      await group.triggerGracefulShutdown()
      for connection in silent {
        #expect(connection.receiveUntilClosed(seconds: 10).isClosed)
      }
      let first = try await tasks.next() ?? false
      tasks.cancelAll()
      return first
    }
    #expect(finished, "the shutdown waited for connections that never sent a request")
    let closed = recorder.lines.filter { $0.message == "connection closed before a request" }
    #expect(closed.count == 3)
    #expect(closed.allSatisfy { $0.metadata["reason"] == "shutdown" && $0.level == .debug })
    #expect(!recorder.lines.contains { $0.level >= .error }, "\(recorder.lines)")
    #expect(
      server.metrics.exposition().contains(
        #"transcribe_closed_connections_total{reason="shutdown"} 3"#))
  }

  @Test func streamsArrivingDuringShutdownAreTurnedAway() async throws {
    let streams = ActiveStreams()
    let calls = Mutex(0)
    let id = try #require(streams.register { calls.withLock { $0 += 1 } })
    let drained = Task { await streams.drain() }
    while !streams.isDraining { await Task.yield() }
    #expect(streams.register {} == nil)
    #expect(calls.withLock { $0 } == 1)
    streams.unregister(id)
    await drained.value
    #expect(streams.count == 0)
  }
}
