import CPocketSphinx
import ConcurrencyExtras
import Foundation

/// Switches pocketsphinx's log on or off.
///
/// pocketsphinx (through sphinxbase) has one log for the whole process, so this is process-wide
/// state: a verbose decoder turns the log on for every decoder running at the same time. The log
/// goes to a duplicate of stderr's file descriptor, because sphinxbase may `fclose` the stream it
/// logs to and must never close the process's real stderr.
enum PocketSphinxLog {
  private static let stream = LockIsolated<UnsafeMutablePointer<FILE>?>(nil)

  /// Turns the log on (to stderr) or off; call before creating a decoder.
  static func setVerbose(_ isVerbose: Bool) {
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
}
