import Hummingbird
import Logging
import SpeechClient

/// The speech pipeline as a service: `transcribe serve`.
///
/// Every WebSocket stream and every upload runs the `SpeechRecognition` store with a client made
/// by ``makeSpeechClient`` (the executable passes the live client, or the lorem client for
/// `--preview`), so this module depends on the client's interface only.
///
/// ```swift
/// let server = TranscriptionServer(configuration: ServerConfiguration(port: 2700)) {
///   .lorem()
/// }
/// try await server.makeApplication().runService()
/// ```
public struct TranscriptionServer: Sendable {
  /// How to listen and what to allow.
  public var configuration: ServerConfiguration
  /// Makes the client for one session; each session gets its own.
  public var makeSpeechClient: @Sendable () -> SpeechClient
  /// Loads what recognition needs (the model) before the server reports itself ready.
  public var prepare: @Sendable () async throws -> Void
  /// Where the server logs.
  public var logger: Logger
  /// What the server measures (`GET /metrics`).
  public let metrics: ServerMetrics
  /// The places for sessions running at once (``ServerConfiguration/maxSessions``).
  public let sessions: SessionLimiter
  /// Whether ``prepare`` has finished (`GET /readyz`).
  public let readiness = ServerReadiness()

  /// Creates a server.
  public init(
    configuration: ServerConfiguration,
    logger: Logger = Logger(label: "transcribe.serve"),
    prepare: @escaping @Sendable () async throws -> Void = {},
    makeSpeechClient: @escaping @Sendable () -> SpeechClient
  ) {
    self.configuration = configuration
    self.logger = logger
    self.prepare = prepare
    self.makeSpeechClient = makeSpeechClient
    self.metrics = ServerMetrics()
    self.sessions = SessionLimiter(limit: configuration.maxSessions)
  }

  /// The Hummingbird application that serves every endpoint.
  public func makeApplication() -> some ApplicationProtocol {
    let router = Router()
    router.add(middleware: RequestLoggingMiddleware())
    addWebRoutes(to: router)
    router.get("healthz") { _, _ in
      "ok\n"
    }
    return Application(
      router: router,
      configuration: .init(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: "transcribe"),
      services: [preparationService],
      logger: logger
    )
  }
}
