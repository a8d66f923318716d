import Hummingbird
import HummingbirdTesting
import Logging
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// Keeps every line logged through it, with its level and metadata.
final class LogRecorder: Sendable {
  struct Entry: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: [String: String]
  }

  private let entries = Mutex<[Entry]>([])

  var lines: [Entry] { entries.withLock { $0 } }

  /// A logger into the recorder; `oneLine` puts ``OneLineLogHandler`` in front, as
  /// `transcribe serve` does.
  func logger(level: Logger.Level = .trace, oneLine: Bool = false) -> Logger {
    var logger = Logger(label: "transcribe.serve") { _ in
      oneLine
        ? OneLineLogHandler(Handler(recorder: self)) as any LogHandler : Handler(recorder: self)
    }
    logger.logLevel = level
    return logger
  }

  fileprivate func record(_ entry: Entry) {
    entries.withLock { $0.append(entry) }
  }

  private struct Handler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let all = metadata.merging(event.metadata ?? [:]) { $1 }
      recorder.record(
        Entry(
          level: event.level, message: "\(event.message)",
          metadata: all.mapValues { "\($0)" }))
    }
  }
}

@Suite struct SessionLogTests {
  @Test func sessionStartAndEndAreInfoLinesWithTheSessionsMetadata() throws {
    let recorder = LogRecorder()
    let log = SessionLog(
      recorder.logger(), endpoint: "/", remoteAddress: "127.0.0.1:50412", id: "0000beef")
    log.started(["sample_rate": "16000"])
    log.ended(.finished, audioSeconds: 12.345)
    let lines = recorder.lines
    try #require(lines.count == 2)
    #expect(lines[0].level == .info)
    #expect(lines[0].message == "session started")
    #expect(
      lines[0].metadata == [
        "session": "0000beef", "endpoint": "/", "remote": "127.0.0.1:50412",
        "sample_rate": "16000",
      ])
    #expect(lines[1].level == .info)
    #expect(lines[1].message == "session ended")
    #expect(lines[1].metadata["outcome"] == "finished")
    #expect(lines[1].metadata["audio_seconds"] == "12.35")
    #expect(lines[1].metadata["session"] == "0000beef")
  }

  @Test func sessionThatFailedEndsWithAWarningNamingWhy() {
    let recorder = LogRecorder()
    let log = SessionLog(recorder.logger(), endpoint: "/", remoteAddress: nil)
    log.ended(.failed("decoder stopped"), audioSeconds: 1)
    #expect(recorder.lines.map(\.level) == [.warning])
    #expect(recorder.lines.first?.metadata["outcome"] == "failed")
    #expect(recorder.lines.first?.metadata["detail"] == "decoder stopped")
    #expect(recorder.lines.first?.metadata["remote"] == nil)
  }

  @Test func clientMistakesAreNotServerWarnings() {
    let recorder = LogRecorder()
    let log = SessionLog(recorder.logger(), endpoint: "/", remoteAddress: nil)
    log.ended(.badInput("odd-length PCM frame"), audioSeconds: 0.5)
    log.ended(.idleTimeout, audioSeconds: 3)
    #expect(recorder.lines.map(\.level) == [.info, .info])
    #expect(recorder.lines.map { $0.metadata["outcome"] } == ["bad_input", "idle_timeout"])
  }

  @Test func rejectionsAreWarningsWithTheReason() {
    let recorder = LogRecorder()
    SessionLog.rejected(
      recorder.logger(), endpoint: "/v1/audio/transcriptions", remoteAddress: "10.0.0.2:4000",
      reason: .capacity)
    #expect(recorder.lines.count == 1)
    #expect(recorder.lines.first?.level == .warning)
    #expect(
      recorder.lines.first?.metadata == [
        "endpoint": "/v1/audio/transcriptions", "remote": "10.0.0.2:4000", "reason": "capacity",
      ])
  }

  @Test func sessionIDsAreEightHexDigitsAndDiffer() {
    let ids = (0..<50).map { _ in SessionLog.makeID() }
    #expect(ids.allSatisfy { $0.wholeMatch(of: /[0-9a-f]{8}/) != nil })
    #expect(Set(ids).count > 1)
  }

  @Test func requestsAreLoggedByPathNeverWithTheToken() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, token: AccessToken("s3cret")),
      logger: recorder.logger()
    ) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/?token=s3cret", method: .get) { response in
        #expect(response.status == .ok)
      }
      try await client.execute(
        uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cret"]
      ) { response in
        #expect(response.status == .ok)
      }
    }
    let lines = recorder.lines
    let requests = lines.filter { $0.metadata["endpoint"] != nil }
    #expect(requests.map(\.message) == ["GET / 200", "GET /metrics 200"])
    #expect(requests.allSatisfy { $0.level == .debug })
    for line in lines {
      #expect(!line.message.contains("s3cret"))
      #expect(!line.metadata.values.contains { $0.contains("s3cret") })
    }
  }
}

extension TranscriptionServer {
  /// A preview server (the lorem client) on any port whose log lines `recorder` keeps, from
  /// `level` up, with its configuration changed by `configure`.
  static func recorded(
    by recorder: LogRecorder, level: Logger.Level = .debug,
    _ configure: (inout ServerConfiguration) -> Void
  ) -> TranscriptionServer {
    var configuration = ServerConfiguration(port: 0)
    configure(&configuration)
    return TranscriptionServer(configuration: configuration, logger: recorder.logger(level: level))
    {
      .lorem()
    }
  }
}
