import Hummingbird
import Logging
import ServiceLifecycle

/// `transcribe serve` as a service for swift-service-lifecycle: prepares recognition, listens,
/// and on graceful shutdown (SIGTERM, SIGINT) lets the streams finish before it stops.
///
/// Shutdown goes in this order: new streams are turned away (close 1001), every running stream
/// stops reading its socket, delivers its last words and closes with 1001 (each bounded by
/// ``ServerConfiguration/shutdownGracePeriod``), and then the HTTP server stops.
///
/// ```swift
/// let service = TranscriptionService(server: server) { port in
///   print("listening on \(port)")
/// }
/// let group = ServiceGroup(
///   configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
public struct TranscriptionService: Service {
  /// The server to run.
  public let server: TranscriptionServer
  /// Called with the port once the server listens.
  public let onListening: @Sendable (Int) async -> Void
  /// Called with each Wyoming listener's address once it listens.
  public var onWyomingListening: @Sendable (WyomingAddress) async -> Void = { _ in }

  /// Creates the service.
  public init(
    server: TranscriptionServer, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
  ) {
    self.server = server
    self.onListening = onListening
  }

  /// Prepares, serves until graceful shutdown, drains the sessions, and returns.
  ///
  /// The application and the drain are one service group of their own: on graceful shutdown
  /// it stops its services in reverse order, so the drain (new sessions turned away, running
  /// ones finishing within the grace period) ends before the application stops; otherwise the
  /// WebSocket layer would close every stream at once with 1000, before their last words.
  public func run() async throws {
    let core = server.core
    try await core.prepare()
    var services: [any Service] = []
    if core.configuration.servesHTTP {
      services.append(server.makeApplication(onServerRunning: onListening))
    }
    // Wyoming's listeners stop after the drain too, so their sessions deliver their last words.
    services += WyomingController(core: core).listeners(onListening: onWyomingListening)
    services.append(SessionDrain(core: core))
    let group = ServiceGroup(
      configuration: .init(services: services, logger: core.logger))
    try await group.run()
  }
}

/// Waits for graceful shutdown, then drains the core's sessions; its group stops the
/// application only after it returns.
struct SessionDrain: Service {
  let core: SessionCore

  func run() async throws {
    // A cancelled group (the application failed) has no sessions to wait for.
    guard (try? await gracefulShutdown()) != nil else { return }
    await core.drain()
  }
}
