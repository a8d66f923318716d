import Foundation
import Logging
import ServiceLifecycle

/// Runs the server's ``TranscriptionServer/prepare`` once the application starts, and records
/// the outcome in its ``ServerReadiness``, so `/readyz` turns ready when the model is loaded.
///
/// It runs next to the HTTP server (which answers `/healthz` and `/readyz` meanwhile), then waits
/// for shutdown: a service that returned early would stop the whole group.
struct PreparationService: Service {
  let prepare: @Sendable () async throws -> Void
  let readiness: ServerReadiness
  let logger: Logger

  func run() async throws {
    // A shutdown while the model still loads cancels the loading.
    await cancelWhenGracefulShutdown { await prepareOnce() }
    try? await gracefulShutdown()
  }

  /// Runs `prepare` and records how it ended (a cancelled `prepare` records nothing). Does
  /// nothing when the host already prepared before starting the application.
  func prepareOnce() async {
    guard !readiness.isPrepared else { return }
    let started = ContinuousClock.now
    do {
      try await prepare()
      readiness.finishPreparing(with: .success(()))
      logger.info(
        "ready for sessions",
        metadata: ["prepare_seconds": "\((ContinuousClock.now - started).secondsDescription)"])
    } catch is CancellationError {
      return
    } catch {
      readiness.finishPreparing(with: .failure(error))
      logger.error(
        "the model could not be loaded; /readyz stays 503", metadata: ["error": "\(error)"])
    }
  }
}

extension Duration {
  /// Seconds with millisecond precision, for logs (`"1.234"`).
  var secondsDescription: String {
    let seconds = Double(components.seconds) + Double(components.attoseconds) * 1e-18
    return String(format: "%.3f", seconds)
  }
}
