import ConcurrencyExtras
import Foundation
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// An upload's session lasts as long as its client wants it: a client that leaves stops the
/// decoding and frees the place, and a session that runs too long is stopped with 503.
@Suite struct UploadLifetimeTests {
  @Test func anUploadWhoseClientLeavesStopsDecodingAndFreesItsPlace() async throws {
    let decoder = EndlessDecoder()
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessions: 1),
      logger: recorder.logger(level: .info)
    ) { decoder.client }
    try await server.makeApplication().test(.live) { client in
      let connection = try RawConnection(port: try #require(client.port))
      connection.send(Self.request(MultipartBody.upload("AUDIO a long talk")))
      #expect(await decoder.started.wait(seconds: 10))
      #expect(server.sessions.activeCount == 1)
      // The upload waits in a file only the server's user can read, in a directory only it
      // can list.
      let permissions = try #require(decoder.permissions.value)
      #expect(permissions.file == 0o600)
      #expect(permissions.directory == 0o700)
      // The client gives up while the file is being decoded.
      connection.close()
      #expect(await decoder.stopped.wait(seconds: 5))
      #expect(await recorder.wait(seconds: 5) { $0.message == "session ended" })
      #expect(server.sessions.activeCount == 0)
    }
    let ended = try #require(recorder.lines.first { $0.message == "session ended" })
    #expect(ended.metadata["outcome"] == "client_closed")
    #expect(ended.metadata["remote"]?.hasPrefix("127.0.0.1:") == true)
  }

  @Test func anUploadPastTheSessionLimitIsStoppedWith503() async throws {
    let decoder = EndlessDecoder()
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessionDuration: .seconds(1)),
      logger: recorder.logger(level: .info)
    ) { decoder.client }
    try await server.makeApplication().test(.live) { client in
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType],
        body: MultipartBody.upload("AUDIO a long talk")
      ) { response in
        #expect(response.status == .serviceUnavailable)
        let error = try openAIError(response.body)
        #expect(error.code == "session_too_long")
        #expect(error.message.contains("--max-session-seconds"))
      }
    }
    #expect(await decoder.stopped.wait(seconds: 5))
    #expect(server.sessions.activeCount == 0)
    let ended = try #require(recorder.lines.first { $0.message == "session ended" })
    #expect(ended.metadata["outcome"] == "too_long")
  }

  @Test func aBodyArrivingMoreSlowlyThanTheSlowestPaceIsAnswered408() async throws {
    let recorder = LogRecorder()
    var configuration = ServerConfiguration(port: 0, maxSessions: 1)
    configuration.minimumUploadRate = 1 << 20
    configuration.uploadRateGrace = .milliseconds(300)
    #expect(ServerConfiguration().minimumUploadRate == 16 << 10)
    #expect(ServerConfiguration().uploadRateGrace == .seconds(10))
    let server = TranscriptionServer(
      configuration: configuration, logger: recorder.logger(level: .info)
    ) { SpeechClient.testValue }
    try await server.makeApplication().test(.live) { client in
      let connection = try RawConnection(port: try #require(client.port))
      defer { connection.close() }
      // The head and a few bytes, then nothing, as a client sending 2 bytes a second.
      connection.send(Array(Self.request(MultipartBody.upload("AUDIO slow")).prefix(200)))
      let answer = connection.receive(seconds: 10)
      #expect(answer.hasPrefix("HTTP/1.1 408"))
      #expect(answer.contains(#""code":"upload_too_slow""#))
      #expect(
        answer.contains(
          "The upload arrived too slowly: this server needs the body at 1 MiB/s or more on "
            + "average after its first 0.3 s; send it over a faster connection."))
      #expect(await recorder.wait(seconds: 5) { $0.message == "session ended" })
    }
    #expect(server.uploadsReading.activeCount == 0)
    #expect(server.sessions.activeCount == 0)
  }

  @Test func anUploadStillSendingItsBodyHoldsNoSessionPlace() async throws {
    let scripted = ScriptedSpeechClient()
    var configuration = ServerConfiguration(port: 0, maxSessions: 1)
    configuration.uploadRateGrace = .seconds(60)
    let server = TranscriptionServer(configuration: configuration) { scripted.client }
    try await server.makeApplication().test(.live) { client in
      let slow = try RawConnection(port: try #require(client.port))
      defer { slow.close() }
      slow.send(Array(Self.request(MultipartBody.upload("AUDIO slow")).prefix(200)))
      let deadline = ContinuousClock.now + .seconds(5)
      while server.uploadsReading.activeCount == 0, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(server.uploadsReading.activeCount == 1)
      #expect(server.sessions.activeCount == 0)
      // The one session place is free for an upload that arrives whole.
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType],
        body: MultipartBody.upload("AUDIO go forward")
      ) { response in
        #expect(response.status == .ok)
        #expect(String(buffer: response.body) == #"{"text":"go forward"}"#)
      }
    }
  }

  @Test func aShutdownStopsAnUploadAfterTheGracePeriodWith503AndTurnsNewOnesAway() async throws {
    let decoder = EndlessDecoder()
    let recorder = LogRecorder()
    var configuration = ServerConfiguration(port: 0)
    configuration.shutdownGracePeriod = .milliseconds(500)
    let server = TranscriptionServer(
      configuration: configuration, logger: recorder.logger(level: .info)
    ) { decoder.client }
    try await server.makeApplication().test(.live) { client in
      async let answer = client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType],
        body: MultipartBody.upload("AUDIO an hour of talk"))
      #expect(await decoder.started.wait(seconds: 10))
      #expect(server.streams.count == 1)
      // SIGTERM: the service drains every session, uploads included.
      let start = ContinuousClock.now
      await server.streams.drain()
      let drained = ContinuousClock.now - start
      #expect(drained >= .milliseconds(400) && drained < .seconds(5))
      let response = try await answer
      #expect(response.status == .serviceUnavailable)
      #expect(response.headers[.retryAfter] == "1")
      let error = try openAIError(response.body)
      #expect(error.code == "server_shutting_down")
      #expect(
        error.message
          == "The server is shutting down; try again later, on another instance if there is one.")
      #expect(await decoder.stopped.wait(seconds: 5))
      // Uploads that arrive now are turned away at once.
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType],
        body: MultipartBody.upload("AUDIO late")
      ) { response in
        #expect(response.status == .serviceUnavailable)
        let late = try openAIError(response.body)
        #expect(late.code == "server_shutting_down")
      }
    }
    let ended = try #require(recorder.lines.first { $0.message == "session ended" })
    #expect(ended.metadata["outcome"] == "shutdown")
    #expect(server.sessions.activeCount == 0)
  }

  /// A POST of `body` to the transcription endpoint, as bytes.
  static func request(_ body: ByteBuffer) -> [UInt8] {
    let head =
      "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      + "Content-Type: \(MultipartBody.contentType)\r\n"
      + "Content-Length: \(body.readableBytes)\r\n\r\n"
    return Array(head.utf8) + Array(body.readableBytesView)
  }
}

/// A speech client whose recognition never ends by itself; it says when a task started and
/// when its stream was stopped (cancelled by the consumer).
final class EndlessDecoder: Sendable {
  let started = Signal()
  let stopped = Signal()
  /// The permissions of the file a task read, and of its directory.
  let permissions = LockIsolated<(file: Int, directory: Int)?>(nil)

  var client: SpeechClient {
    SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { [started, stopped, permissions] request in
        if case .file(let url) = request.source {
          let mode = { @Sendable (path: String) in
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions]
              as? Int) ?? -1
          }
          permissions.setValue((mode(url.path), mode(url.deletingLastPathComponent().path)))
        }
        let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
          .makeStream()
        continuation.onTermination = { _ in stopped.fire() }
        started.fire()
        return stream
      },
      finishTask: {},
      captureDevices: { [] })
  }
}

/// Something that happens once, which tests wait for with a bound.
final class Signal: Sendable {
  private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func fire() {
    let waiters = state.withLock { state in
      state.fired = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Whether it happened within `seconds`.
  func wait(seconds: Double) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await withCheckedContinuation { continuation in
          let fired = self.state.withLock { state in
            if !state.fired { state.waiters.append(continuation) }
            return state.fired
          }
          if fired { continuation.resume() }
        }
        return true
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds))
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      if !first { fire() }
      return first
    }
  }
}

extension LogRecorder {
  /// Whether a line matching `predicate` is logged within `seconds`.
  func wait(seconds: Double, for predicate: (Entry) -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
      if lines.contains(where: predicate) { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return lines.contains(where: predicate)
  }
}

/// A bare TCP connection to the loopback, for a client that leaves in the middle of a request.
final class RawConnection {
  let descriptor: Int32

  init(port: Int) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
  }

  func send(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { return }
      offset += sent
    }
  }

  func close() {
    _ = Glibc.close(descriptor)
  }

  /// What the server sends until it closes the connection or `seconds` pass.
  func receive(seconds: Double) -> String {
    var bytes: [UInt8] = []
    let deadline = ContinuousClock.now + .seconds(seconds)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while ContinuousClock.now < deadline {
      var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) >= 0 else { break }
      guard descriptor.revents != 0 else { continue }
      let count = recv(self.descriptor, &buffer, buffer.count, 0)
      guard count > 0 else { break }
      bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
