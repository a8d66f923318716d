import Foundation

extension Duration {
  /// The duration in seconds, as a `TimeInterval`, for the package's modules that meet clock
  /// durations and audio times (seconds as `TimeInterval`).
  package var timeInterval: TimeInterval {
    let (seconds, attoseconds) = components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}
