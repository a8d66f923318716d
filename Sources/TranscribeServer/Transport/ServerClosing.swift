import Logging
import Synchronization

/// Whether the server itself closed a connection before its first request.
final class ServerClosing: Sendable {
  private let closed = Atomic<Bool>(false)

  var isClosed: Bool { closed.load(ordering: .relaxed) }

  func markClosed() { closed.store(true, ordering: .relaxed) }
}

/// Logs as its base does, but an error about a connection the server closed on purpose (see
/// ``ServerClosing``) at debug level.
struct ServerClosingLogHandler: LogHandler {
  var base: any LogHandler
  let closing: ServerClosing

  var metadata: Logger.Metadata {
    get { base.metadata }
    set { base.metadata = newValue }
  }

  var logLevel: Logger.Level {
    get { base.logLevel }
    set { base.logLevel = newValue }
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { base[metadataKey: key] }
    set { base[metadataKey: key] = newValue }
  }

  func log(event: LogEvent) {
    var event = event
    if event.level >= .error, closing.isClosed { event.level = .debug }
    guard event.level >= base.logLevel else { return }
    base.log(event: event)
  }
}
