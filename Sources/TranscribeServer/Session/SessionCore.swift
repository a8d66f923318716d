import Architecture
import Foundation
import Logging
import SpeechClient

/// What every protocol of the server shares, built once per server: admission (the session
/// and upload limits, their permits, per-endpoint metrics and logs), the recognizers sessions
/// borrow, readiness, and the shutdown grace.
///
/// A protocol is a controller over this core (``VoskController``, ``OpenAIController``,
/// ``WebController``): it asks the core to ``admit(_:endpoint:remoteAddress:onShutdown:)`` a
/// session, borrows a recognizer with ``makeSpeechClient``, and renders the core's refusals in
/// its own transport. Nothing here knows a protocol.
///
/// ```swift
/// let core = SessionCore(configuration: configuration, recognizers: .init { .lorem() })
/// let session = try core.admit(.stream, endpoint: "/", remoteAddress: nil) { … }
/// defer { session.end(.finished, audioSeconds: 0) }
/// ```
public struct SessionCore: Sendable {
  /// How the server listens and what it allows: every limit, declared once.
  public var configuration: ServerConfiguration
  /// What the server measures (`GET /metrics`).
  public let metrics: ServerMetrics
  /// The places for sessions running at once (``ServerConfiguration/maxSessions``).
  public let sessions: SessionLimiter
  /// The uploads receiving their body (``ServerConfiguration/maxUploadsReading``): they hold no
  /// session place until decoding starts.
  public let uploadsReading: SessionLimiter
  /// Whether the recognizers are prepared (`GET /readyz`).
  public let readiness: ServerReadiness
  /// The sessions running now, which a shutdown drains.
  public let streams: ActiveStreams
  /// The connections open now (``ServerConfiguration/maxConnections``).
  let connections: OpenConnections
  /// The recognizers sessions borrow.
  public var recognizers: Recognizers
  /// The clock of the sessions' timeouts (idle, maximum length, waits for the decoder).
  public var clock: any Clock<Duration> = ContinuousClock()
  /// Where the sessions' stores run: the process's executors (one per core), each session on
  /// the one the fewest running sessions hold (a lease), so sessions admitted one after
  /// another reduce in parallel, and long sessions do not share a thread while another idles;
  /// off the main actor and off Swift's cooperative pool, where their connections' reads and
  /// writes wait.
  let executors = ThreadExecutor.Rotation()
  /// Where the server logs.
  public var logger: Logger

  /// Builds the core: its limiters sized by `configuration`.
  public init(
    configuration: ServerConfiguration, logger: Logger = Logger(label: "transcribe.serve"),
    recognizers: Recognizers
  ) {
    self.configuration = configuration
    self.logger = logger
    self.recognizers = recognizers
    self.metrics = ServerMetrics()
    self.sessions = SessionLimiter(limit: configuration.maxSessions)
    self.uploadsReading = SessionLimiter(limit: configuration.uploadsReadingLimit)
    self.readiness = ServerReadiness()
    self.streams = ActiveStreams()
    self.connections = OpenConnections()
  }

  /// A client for one session; each session gets its own.
  func makeSpeechClient() -> SpeechClient { recognizers.makeSpeechClient() }

  // MARK: - Admission

  /// How a session takes its place.
  enum AdmissionKind: Sendable {
    /// A stream: its session place now.
    case stream
    /// An upload: a place among the uploads receiving their body now (only while a session
    /// place is free), its session place once the body is in (``AdmittedSession/takePlace()``).
    case upload
  }

  /// Lets a session in, or refuses it (counted and logged here, once); `onShutdown` is called
  /// once when the server begins to shut down while the session runs.
  func admit(
    _ kind: AdmissionKind, endpoint: String, remoteAddress: String?,
    onShutdown: @escaping @Sendable () -> Void
  ) throws(AdmissionRefusal) -> AdmittedSession {
    let session = AdmittedSession(core: self, endpoint: endpoint, remoteAddress: remoteAddress)
    switch kind {
    case .stream:
      try session.takePlace()
    case .upload:
      guard sessions.hasCapacity, let reading = uploadsReading.acquire() else {
        reject(.capacity, endpoint: endpoint, remoteAddress: remoteAddress)
        throw .capacity
      }
      session.holdReading(reading)
    }
    guard let registration = streams.register(shutdown: onShutdown) else {
      session.abandon()
      reject(.shuttingDown, endpoint: endpoint, remoteAddress: remoteAddress)
      throw .shuttingDown
    }
    session.started(registration: registration)
    return session
  }

  /// Counts and logs (`warning`) a session turned away before it started: the one place every
  /// endpoint and policy reports a rejection.
  func reject(_ reason: SessionRejection, endpoint: String, remoteAddress: String?) {
    metrics.sessionRejected(reason)
    SessionLog.rejected(logger, endpoint: endpoint, remoteAddress: remoteAddress, reason: reason)
  }

  /// Counts and logs a connection the server closed before its first request: a client's
  /// doing (or the shutdown), so an info line, or a debug line for each at shutdown.
  func connectionClosed(_ reason: ConnectionClosure, remoteAddress: String?) {
    metrics.connectionClosed(reason)
    var logger = self.logger
    if let remoteAddress { logger[metadataKey: "remote"] = .string(remoteAddress) }
    let level: Logger.Level = reason == .shutdown ? .debug : .info
    logger.log(
      level: level, "connection closed before a request",
      metadata: ["reason": .string(reason.rawValue)])
  }

  // MARK: - Readiness and shutdown

  /// What `GET /readyz` answers now.
  func readinessReport() -> ReadinessReport {
    ReadinessReport(
      readiness: readiness, sessions: sessions, engines: configuration.engines.map(\.rawValue),
      decodersStuck: recognizers.areStuck())
  }

  /// Prepares the recognizers and records it in ``readiness``.
  func prepare() async throws {
    try await recognizers.prepare()
    readiness.finishPreparing(with: .success(()))
  }

  /// Turns new sessions away and lets the running ones finish, each within the shutdown grace
  /// period; returns once they all have, or a little after the grace period at the most.
  func drain() async {
    logger.info("shutting down: finishing \(streams.count) session(s) (streams and uploads)")
    let grace = configuration.shutdownGracePeriod
    // Each session bounds its own wait by the grace period; this bounds them all.
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await streams.drain() }
      group.addTask { [clock] in try? await clock.sleep(for: grace + ServerConfiguration.drainSlack)
      }
      await group.next()
      group.cancelAll()
    }
  }
}

/// The recognizers a server's sessions borrow, and what it can ask of them.
public struct Recognizers: Sendable {
  /// Makes the client for one session; each session gets its own.
  public var makeSpeechClient: @Sendable () -> SpeechClient
  /// Loads what recognition needs (the model) before the server reports itself ready.
  public var prepare: @Sendable () async throws -> Void
  /// Whether every decoder of one of the engines has been busy for longer than
  /// ``ServerConfiguration/stuckDecoderAge``: `/readyz` then says `stuck` while a session place
  /// is free, since a
  /// new stream would wait for a decoder.
  public var areStuck: @Sendable () -> Bool = { false }
  /// The length of an uploaded file's audio as its header declares it, or `nil` when it cannot
  /// tell: uploads longer than ``ServerConfiguration/maxUploadAudioDuration`` are refused
  /// before decoding.
  public var declaredAudioDuration: @Sendable (URL) -> TimeInterval? = { _ in nil }

  /// Recognizers made by `makeSpeechClient`, prepared by `prepare`.
  public init(
    prepare: @escaping @Sendable () async throws -> Void = {},
    makeSpeechClient: @escaping @Sendable () -> SpeechClient
  ) {
    self.prepare = prepare
    self.makeSpeechClient = makeSpeechClient
  }
}

/// Why the session core turned a session away (counted and logged already), or, for a
/// shutdown, stopped one: the one wording of each, which every transport renders (an upload's
/// 503 with `Retry-After` and OpenAI's JSON, a stream's error message and close 1013 or 1001).
enum AdmissionRefusal: Error, Equatable, Sendable {
  /// Every session place is taken.
  case capacity
  /// The server is shutting down.
  case shuttingDown

  /// What the client is told (a transport may make it a sentence): the catalogue's text
  /// (``SessionProblem``).
  var message: String { SessionProblem(self).text }
}
