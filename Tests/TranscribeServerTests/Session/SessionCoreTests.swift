import Architecture
import Foundation
import Hummingbird
import Testing

@testable import TranscribeServer

/// The session core's admission, without a socket: places, permits, metrics and logs are
/// taken and given back once, whatever path a session takes.
@Suite struct SessionCoreTests {
  func core(maxSessions: Int = 1, recorder: LogRecorder = LogRecorder()) -> SessionCore {
    SessionCore(
      configuration: ServerConfiguration(maxSessions: maxSessions),
      logger: recorder.logger(level: .info), recognizers: Recognizers { .lorem() })
  }

  @Test func aStreamHoldsItsPlaceUntilItIsFreedAndEndsOnce() throws {
    let recorder = LogRecorder()
    let core = core(recorder: recorder)
    let session = try core.admit(.stream, endpoint: "/", remoteAddress: nil) {}
    #expect(core.sessions.activeCount == 1)
    #expect(core.streams.count == 1)
    #expect(core.metrics.exposition().contains("transcribe_active_sessions 1"))
    session.freePlace()
    session.freePlace()
    #expect(core.sessions.activeCount == 0)
    #expect(core.metrics.exposition().contains("transcribe_active_sessions 0"))
    session.end(.finished, audioSeconds: 1)
    session.end(.finished, audioSeconds: 1)
    #expect(core.streams.count == 0)
    #expect(recorder.lines.map(\.message) == ["session started", "session ended"])
  }

  @Test func pastTheLimitASessionIsRefusedCountedAndLogged() throws {
    let recorder = LogRecorder()
    let core = core(recorder: recorder)
    let first = try core.admit(.stream, endpoint: "/", remoteAddress: nil) {}
    #expect(throws: AdmissionRefusal.capacity) {
      try core.admit(.stream, endpoint: "/", remoteAddress: "127.0.0.1:1") {}
    }
    #expect(throws: AdmissionRefusal.capacity) {
      try core.admit(.upload, endpoint: "/v1/audio/transcriptions", remoteAddress: nil) {}
    }
    #expect(
      core.metrics.exposition().contains(
        #"transcribe_rejected_sessions_total{reason="capacity"} 2"#))
    #expect(recorder.lines.filter { $0.message == "session rejected" }.count == 2)
    first.end(.finished, audioSeconds: 0)
    #expect(core.sessions.activeCount == 0)
  }

  @Test func anUploadTakesItsSessionPlaceOnlyOnceItsBodyIsIn() throws {
    let core = core()
    let upload = try core.admit(.upload, endpoint: "/v1/audio/transcriptions", remoteAddress: nil) {
    }
    #expect(core.uploadsReading.activeCount == 1)
    #expect(core.sessions.activeCount == 0)
    try upload.takePlace()
    #expect(core.sessions.activeCount == 1)
    upload.end(.finished, audioSeconds: 2)
    #expect(core.uploadsReading.activeCount == 0)
    #expect(core.sessions.activeCount == 0)
  }

  /// A reducer that, inside `reduce`, signals `started` and waits for `other` to have been
  /// signalled: two of them finish only if their stores reduce at the same time.
  struct Rendezvous: Reducer, Sendable {
    let started: DispatchSemaphore
    let other: DispatchSemaphore
    func reduce(into state: inout Bool, action: Void) -> Effect<Void> {
      started.signal()
      state = other.wait(timeout: .now() + 10) == .success
      return .none
    }
  }

  @Test func theSessionsOfOneServerReduceInParallel() async {
    let core = core(maxSessions: 2)
    let (first, second) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let leases = [core.executors.lease(), core.executors.lease()]
    defer { leases.forEach { $0.release() } }
    let stores = [
      core.makeSessionStore(
        false, reducer: Rendezvous(started: first, other: second), executor: leases[0].executor),
      core.makeSessionStore(
        false, reducer: Rendezvous(started: second, other: first), executor: leases[1].executor),
    ]
    await withTaskGroup(of: Void.self) { group in
      for store in stores {
        group.addTask { await store.send(()) }
      }
    }
    for store in stores {
      #expect(await store.state)
    }
  }

  @Test func aShutdownAsksRunningSessionsToFinishAndTurnsNewOnesAway() async throws {
    let core = core(maxSessions: 2)
    let notice = Latch()
    let session = try core.admit(.stream, endpoint: "/", remoteAddress: nil) { notice.raise() }
    let drained = Task { await core.streams.drain() }
    await notice.wait()
    #expect(throws: AdmissionRefusal.shuttingDown) {
      try core.admit(.stream, endpoint: "/", remoteAddress: nil) {}
    }
    // The refused session gave its place back.
    #expect(core.sessions.activeCount == 1)
    session.end(.shutdown, audioSeconds: 0)
    await drained.value
    #expect(core.streams.count == 0)
  }
}

/// A refusal has one wording, which each transport renders: a stream's error message and close
/// code, an upload's sentence, status and `Retry-After`.
@Suite struct AdmissionRefusalWordingTests {
  @Test func capacityReadsTheSameOnEveryTransport() {
    let stream = WebSocketSessionError(AdmissionRefusal.capacity)
    #expect(stream.message == "every session place is taken; try again later")
    #expect(stream.closeCode == 1013)
    let upload = OpenAIError(AdmissionRefusal.capacity, retryAfter: 3)
    #expect(upload.message == "Every session place is taken; try again later.")
    #expect(upload.status == .serviceUnavailable)
    #expect(upload.response().headers[.retryAfter] == "3")
  }

  @Test func aShutdownReadsTheSameOnEveryTransport() {
    let stream = WebSocketSessionError(AdmissionRefusal.shuttingDown)
    #expect(
      stream.message
        == "the server is shutting down; try again later, on another instance if there is one")
    #expect(stream.closeCode == 1001)
    #expect(stream.closeReason == stream.message)
    let upload = OpenAIError(AdmissionRefusal.shuttingDown, retryAfter: 1)
    #expect(
      upload.message
        == "The server is shutting down; try again later, on another instance if there is one.")
    #expect(upload.code == "server_shutting_down")
  }
}
