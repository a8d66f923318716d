import Foundation

extension Duration {
  /// The duration in seconds, for the C APIs and timers that count in seconds.
  var timeInterval: TimeInterval {
    Double(components.seconds) + Double(components.attoseconds) * 1e-18
  }
}
