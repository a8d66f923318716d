/// Audio a host pushes in as it arrives (a server's connection), as ``PushedSamples`` reads it:
/// signed 16-bit mono samples at ``sampleRate``.
///
/// The speech client's `PushedAudio` conforms; this module only needs a blocking read.
public protocol PushedSampleQueue: AnyObject, Sendable {
  /// The rate the pushed samples are recorded at, in Hz.
  var sampleRate: Int { get }

  /// Takes up to `maximumCount` waiting samples, waiting at most `timeout` for some to arrive.
  func nextSamples(maximumCount: Int, timeout: Duration) -> PushedSampleRead

  /// Whether a read would return at once: samples are waiting, or the stream is finished.
  var hasWaitingSamples: Bool { get }
}

/// What a read of a ``PushedSampleQueue`` found.
public enum PushedSampleRead: Equatable, Sendable {
  /// Samples that were waiting (never empty).
  case samples([Int16])
  /// Nothing arrived within the timeout; the stream goes on.
  case timedOut
  /// The stream is finished and every sample has been read.
  case finished
}
