import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
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
  /// The uploads receiving their body (``ServerConfiguration/maxUploadsReading``): they hold no
  /// session place until decoding starts.
  public let uploadsReading: SessionLimiter
  /// The WebSocket streams running now, which a shutdown drains.
  public let streams: ActiveStreams
  /// The connections open now (``ServerConfiguration/maxConnections``).
  let connections = OpenConnections()
  /// The clock of the streams' timeouts (idle, maximum length, waits for the decoder).
  public var clock: any Clock<Duration> = ContinuousClock()
  /// Whether every decoder of one of the engines has been busy for longer than
  /// ``stuckDecoderAge`` (the executable asks the live client's pools): `/readyz` then says
  /// `stuck` while a session place is free, since a new stream would wait for a decoder.
  public var areDecodersStuck: @Sendable () -> Bool = { false }
  /// The length of an uploaded file's audio as its header declares it, or `nil` when it cannot
  /// tell (the executable reads headers with libsndfile): uploads longer than
  /// ``ServerConfiguration/maxUploadAudioDuration`` are refused before decoding.
  public var uploadAudioDuration: @Sendable (URL) -> TimeInterval? = { _ in nil }
  /// How long every decoder must have been busy before ``areDecodersStuck`` says so: longer
  /// than a session's last words take once its client has gone.
  public static let stuckDecoderAge = Duration.seconds(10)

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
    self.uploadsReading = SessionLimiter(
      limit: configuration.maxUploadsReading ?? 4 * configuration.maxSessions)
    self.streams = ActiveStreams()
  }

  /// The Hummingbird application that serves every endpoint: HTTP, and the WebSocket upgrade
  /// at `/`. `onServerRunning` gets the port once the server listens (useful with port 0).
  public func makeApplication(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let webSocketRouter = Router(context: ServerRequestContext.self)
    addWebSocketRoutes(to: webSocketRouter)
    return Application(
      router: makeRouter(),
      server: .http1WebSocketUpgrade(
        webSocketRouter: webSocketRouter,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration(
          // Between requests; the first request's headers have their own timeout (see
          // `UpgradeTokenHandler`).
          http1: .init(idleTimeout: TimeAmount(configuration.requestHeaderTimeout)),
          ws: WebSocketServerConfiguration(
            maxFrameSize: Self.frameReadLimit(configuration.maxFrameBytes),
            extensions: [.nonNegotiatedExtension { MaskedFramesOnly() }],
            autoPing: .enabled(timePeriod: configuration.pingInterval))),
        authorizingWith: self),
      configuration: .init(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: "transcribe"),
      services: [preparationService],
      onServerRunning: { channel in
        await onServerRunning(channel.localAddress?.port ?? 0)
      },
      logger: logger
    )
  }

  /// The largest WebSocket frame read at all, for a message limit of `limit` bytes: twice it,
  /// so the stream answers a message just over the limit itself; a larger frame is refused by
  /// the protocol layer (1009, after an error message from ``OversizedFrameHandler``).
  static func frameReadLimit(_ limit: Int) -> Int { 2 * limit }

  /// Counts and logs (`warning`) a session turned away before it started: the one place every
  /// endpoint reports a rejection.
  func reject(_ reason: SessionRejection, endpoint: String, remoteAddress: String?) {
    metrics.sessionRejected(reason)
    SessionLog.rejected(logger, endpoint: endpoint, remoteAddress: remoteAddress, reason: reason)
  }

  /// The HTTP routes. Each endpoint's file adds its own (`add…Routes(to:)`).
  func makeRouter() -> Router<ServerRequestContext> {
    // HEAD answers as GET without the body, for every GET route.
    let router = Router(context: ServerRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestLoggingMiddleware())
    router.add(middleware: OriginMiddleware(server: self))
    router.add(middleware: MethodMiddleware())
    addWebRoutes(to: router)
    router.get("healthz") { _, _ in
      "ok\n"
    }
    addTranscriptionRoutes(to: router)
    return router
  }
}
