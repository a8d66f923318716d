import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import SpeechClient

/// The speech pipeline as a service: `transcribe serve`.
///
/// A server is its ``SessionCore``, built once here (admission, recognizers, readiness,
/// shutdown), and the application ``makeApplication(onServerRunning:)`` builds over it: one
/// controller per protocol, each holding only what it uses (see `buildRouter`). The executable
/// passes the live client, or the lorem client for `--preview`, so this module depends on the
/// client's interface only.
///
/// ```swift
/// let server = TranscriptionServer(configuration: ServerConfiguration(port: 2700)) {
///   .lorem()
/// }
/// try await server.makeApplication().runService()
/// ```
public struct TranscriptionServer: Sendable {
  /// What every protocol shares.
  public var core: SessionCore

  /// Creates a server and its core.
  public init(
    configuration: ServerConfiguration,
    logger: Logger = Logger(label: "transcribe.serve"),
    prepare: @escaping @Sendable () async throws -> Void = {},
    makeSpeechClient: @escaping @Sendable () -> SpeechClient
  ) {
    core = SessionCore(
      configuration: configuration, logger: logger,
      recognizers: Recognizers(prepare: prepare, makeSpeechClient: makeSpeechClient))
  }

  /// The Hummingbird application that serves every endpoint: HTTP, and the WebSocket upgrade
  /// at `/`. `onServerRunning` gets the port once the server listens (useful with port 0).
  public func makeApplication(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    buildApplication(core, onServerRunning: onServerRunning)
  }

  // MARK: - The core's parts, for the host and tests

  /// How to listen and what to allow.
  public var configuration: ServerConfiguration {
    get { core.configuration }
    set { core.configuration = newValue }
  }
  /// Where the server logs.
  public var logger: Logger {
    get { core.logger }
    set { core.logger = newValue }
  }
  /// The clock of the sessions' timeouts.
  public var clock: any Clock<Duration> {
    get { core.clock }
    set { core.clock = newValue }
  }
  /// Makes the client for one session.
  public var makeSpeechClient: @Sendable () -> SpeechClient {
    get { core.recognizers.makeSpeechClient }
    set { core.recognizers.makeSpeechClient = newValue }
  }
  /// Loads what recognition needs before the server reports itself ready.
  public var prepare: @Sendable () async throws -> Void {
    get { core.recognizers.prepare }
    set { core.recognizers.prepare = newValue }
  }
  /// Whether every decoder of an engine is stuck (see ``Recognizers/areStuck``).
  public var areDecodersStuck: @Sendable () -> Bool {
    get { core.recognizers.areStuck }
    set { core.recognizers.areStuck = newValue }
  }
  /// An uploaded file's declared length (see ``Recognizers/declaredAudioDuration``).
  public var uploadAudioDuration: @Sendable (URL) -> TimeInterval? {
    get { core.recognizers.declaredAudioDuration }
    set { core.recognizers.declaredAudioDuration = newValue }
  }
  /// What the server measures (`GET /metrics`).
  public var metrics: ServerMetrics { core.metrics }
  /// The places for sessions running at once.
  public var sessions: SessionLimiter { core.sessions }
  /// Whether ``prepare`` has finished (`GET /readyz`).
  public var readiness: ServerReadiness { core.readiness }
  /// The uploads receiving their body.
  public var uploadsReading: SessionLimiter { core.uploadsReading }
  /// The sessions running now, which a shutdown drains.
  public var streams: ActiveStreams { core.streams }
  /// The connections open now.
  var connections: OpenConnections { core.connections }
}
