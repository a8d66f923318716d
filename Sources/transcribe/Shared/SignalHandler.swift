import Dispatch
import Foundation

/// Turns SIGINT, SIGTERM and SIGHUP into calls on the main actor, for the whole process.
///
/// Installed once per process: resetting a signal to its default and ignoring it again would
/// replace the dispatch source's handler, so sessions never reinstall it; each session sets
/// ``onSignal`` instead. Signals that arrive while no session runs are remembered in
/// ``received``.
@MainActor
final class SignalHandler {
  /// The signals that stop a run: Ctrl-C, `kill`, and a closed terminal.
  static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

  private var sources: [any DispatchSourceSignal] = []
  /// The signals received so far, in order.
  private(set) var received: [Int32] = []
  /// Called with each signal, after it was added to ``received``.
  var onSignal: (@MainActor (Int32) -> Void)?

  /// Starts handling the signals; call once.
  init() {
    for signalNumber in Self.handled {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
      // The handler keeps its source alive: both live as long as the process.
      source.setEventHandler { [weak self] in
        // Signals that arrive before the handler runs are merged into one event; `data` counts
        // them, so two quick Ctrl-Cs are still two.
        let count = max(1, Int(source.data))
        MainActor.assumeIsolated {
          guard let self else { return }
          for _ in 0..<count {
            self.received.append(signalNumber)
            self.onSignal?(signalNumber)
          }
        }
      }
      source.resume()
      sources.append(source)
    }
  }
}
