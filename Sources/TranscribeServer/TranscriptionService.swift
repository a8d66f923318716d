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
    let core = server.core
    try await core.prepare()
    let application = server.makeApplication(onServerRunning: onListening)
    // The application runs in a group of its own, out of reach of the outer group's graceful
    // shutdown: otherwise the WebSocket layer would close every stream at once with 1000,
    // before their last words.
    let inner = ServiceGroup(
      configuration: .init(services: [application], logger: core.logger))
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
        await core.drain()
        await inner.triggerGracefulShutdown()
      }
    }
  }
}
