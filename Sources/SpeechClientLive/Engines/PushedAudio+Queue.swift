import AudioInput
import SpeechClient

extension PushedAudio: PushedSampleQueue {
  /// ``PushedAudio/read(maximumCount:timeout:)`` for ``PushedSamples``.
  public func nextSamples(maximumCount: Int, timeout: Duration) -> PushedSampleRead {
    switch read(maximumCount: maximumCount, timeout: timeout) {
    case let .samples(samples): .samples(samples)
    case .timedOut: .timedOut
    case .finished: .finished
    }
  }

  /// Samples pushed and not read yet, or the end.
  public var hasWaitingSamples: Bool { unconsumedDuration > 0 || isFinished }
}
