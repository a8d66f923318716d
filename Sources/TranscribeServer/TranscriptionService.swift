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

  /// Creates the service.
  public init(
    server: TranscriptionServer, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
  ) {
    self.server = server
    self.onListening = onListening
  }

  /// Prepares, serves until graceful shutdown, drains the streams, and returns.
  public func run() async throws {
    try await server.prepare()
    server.readiness.finishPreparing(with: .success(()))
    let application = server.makeApplication(onServerRunning: onListening)
    // The application runs in a group of its own, out of reach of the outer group's graceful
    // shutdown: otherwise the WebSocket layer would close every stream at once with 1000,
    // before their last words.
    let inner = ServiceGroup(
      configuration: .init(services: [application], logger: server.logger))
    let server = self.server
    let grace = server.configuration.shutdownGracePeriod
    // A detached task inherits no task-local graceful-shutdown handlers.
    let serving = Task.detached { try await inner.run() }
    try await withGracefulShutdownHandler {
      try await withTaskCancellationHandler {
        try await serving.value
      } onCancel: {
        serving.cancel()
      }
    } onGracefulShutdown: {
      Task {
        server.logger.info(
          "shutting down: finishing \(server.streams.count) session(s) (streams and uploads)")
        // Each stream bounds its own wait by the grace period; this bounds them all.
        await withTaskGroup(of: Void.self) { group in
          group.addTask { await server.streams.drain() }
          group.addTask { try? await server.clock.sleep(for: grace + .seconds(2)) }
          await group.next()
          group.cancelAll()
        }
        await inner.triggerGracefulShutdown()
      }
    }
  }
}
