import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into calls on the main actor, counting them.
///
/// The first signal asks the session to stop gracefully (flushing the last words); a second
/// SIGINT is the user insisting, and ends the process at once.
@MainActor
final class SignalHandler {
  private var sources: [any DispatchSourceSignal] = []
  private(set) var count = 0

  /// Starts handling SIGINT and SIGTERM; `onSignal` gets the signal and how many came so far.
  init(onSignal: @escaping @MainActor (Int32, Int) -> Void) {
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
      source.setEventHandler { [weak self] in
        MainActor.assumeIsolated {
          guard let self else { return }
          self.count += 1
          onSignal(signalNumber, self.count)
        }
      }
      source.resume()
      sources.append(source)
    }
  }

  /// Stops handling signals and restores the default behaviour.
  func cancel() {
    for source in sources { source.cancel() }
    sources = []
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}
