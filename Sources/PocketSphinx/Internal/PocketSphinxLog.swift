import CPocketSphinx
import ConcurrencyExtras
import Foundation

/// Switches pocketsphinx's log on or off, and captures what it says while a model loads.
///
/// pocketsphinx (through sphinxbase) has one log for the whole process, so this is process-wide
/// state: a verbose decoder turns the log on for every decoder running at the same time. The log
/// goes to a duplicate of stderr's file descriptor, because sphinxbase may `fclose` the stream it
/// logs to and must never close the process's real stderr.
enum PocketSphinxLog {
  private static let stream = LockIsolated<UnsafeMutablePointer<FILE>?>(nil)
  /// Held while a load's log is captured, so two loads never write into each other's capture.
  private static let captureLock = NSLock()

  /// Turns the log on (to stderr) or off. Only called with `captureLock` held, so it never
  /// switches the log away from a capture in progress.
  private static func setVerbose(_ isVerbose: Bool) {
    stream.withValue { stream in
      if isVerbose {
        if stream == nil {
          stream = fdopen(dup(STDERR_FILENO), "w")
        }
        err_set_logfp(stream)
      } else {
        err_set_logfp(nil)
      }
    }
  }

  /// Runs `body` (a model load) with the log written into memory, and returns the log's error
  /// messages; with `isVerbose` the whole log is also written to stderr afterwards.
  ///
  /// - Parameter silencingStandardOutput: sphinxbase's JSGF lexer echoes text it cannot match
  ///   to standard output; this sends standard output to /dev/null while `body` runs (pending
  ///   output is flushed first, so none of the caller's is lost).
  static func capturingErrors<T>(
    isVerbose: Bool, silencingStandardOutput: Bool, _ body: () -> T
  ) -> (value: T, errors: [LoggedError]) {
    captureLock.lock()
    defer { captureLock.unlock() }
    let buffer = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 1)
    let size = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    buffer.initialize(to: nil)
    size.initialize(to: 0)
    defer {
      free(buffer.pointee)
      buffer.deallocate()
      size.deallocate()
    }
    guard let memory = open_memstream(buffer, size) else {
      setVerbose(isVerbose)
      return (body(), [])
    }
    err_set_logfp(memory)
    var savedOutput: Int32 = -1
    if silencingStandardOutput {
      fflush(nil)
      savedOutput = dup(STDOUT_FILENO)
      let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
      if null >= 0 {
        dup2(null, STDOUT_FILENO)
        close(null)
      }
    }
    let value = body()
    if savedOutput >= 0 {
      fflush(nil)
      dup2(savedOutput, STDOUT_FILENO)
      close(savedOutput)
    }
    setVerbose(isVerbose)
    fclose(memory)
    let log = buffer.pointee.map { String(cString: $0) } ?? ""
    if isVerbose {
      FileHandle.standardError.write(Data(log.utf8))
    }
    return (value, log.split(separator: "\n").compactMap(LoggedError.init))
  }
}
