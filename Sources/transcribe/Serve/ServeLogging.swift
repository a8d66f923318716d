import ArgumentParser
import Logging
import TranscribeServer

/// `--log-level trace|debug|info|notice|warning|error|critical` for `transcribe serve`.
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// How `transcribe serve` logs: one line per event on standard error, with the event's metadata
/// as `key=value` pairs (`session=… remote=… endpoint=…`), at `level` and above. Text a client
/// sent is escaped and cut (``OneLineLogHandler``), so it can never forge or flood a line.
///
/// Called once, before the server makes its loggers.
func bootstrapServeLogging(level: Logger.Level) {
  LoggingSystem.bootstrap { label in
    var handler = OneLineLogHandler(StreamLogHandler.standardError(label: label))
    handler.logLevel = level
    return handler
  }
}
