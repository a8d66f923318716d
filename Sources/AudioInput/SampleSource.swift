import Foundation

/// A source of 16 kHz mono signed 16-bit samples, read on its task's own thread.
///
/// Reads may block (a microphone waits for audio) but never for longer than the source's own
/// timeouts, and they return `nil` once the source ends or its task was asked to stop.
///
/// ```swift
/// let source: any SampleSource = try AudioFile(url: URL(fileURLWithPath: "talk.wav"))
/// while let samples = try source.read() {
///   decode(samples)
/// }
/// ```
public protocol SampleSource: AnyObject {
  /// Reads the next chunk of samples; `nil` at the end of the input.
  ///
  /// - Throws: an ``AudioInputFailure`` when the source fails. Samples read before are valid.
  func read() throws(AudioInputFailure) -> [Int16]?

  /// How much of the input has been read, 0…1, or `nil` for a source without an end.
  var progress: Double? { get }

  /// The length of the whole input in seconds, or `nil` for a source without an end.
  var totalDuration: TimeInterval? { get }

  /// The sample rate the audio was recorded at, in Hz, before conversion to 16 kHz, or `nil`
  /// when unknown. Below 16 kHz the audio lacks frequencies speech models rely on.
  var recordedSampleRate: Int? { get }

  /// Whether reads after a stop still deliver what was captured before it (a microphone),
  /// rather than the task ending at once (a file: the rest is simply not decoded).
  var drainsWhenStopped: Bool { get }

  /// Whether more of the input is already here, so the next read returns without waiting: audio
  /// that arrives faster than it is decoded. A source read at the pace it is recorded (a
  /// microphone) or without a wait (a file) says no.
  var hasWaitingAudio: Bool { get }
}

extension SampleSource {
  /// Sources end at once when stopped, unless they say otherwise.
  public var drainsWhenStopped: Bool { false }

  /// Sources are read at their own pace unless they say otherwise.
  public var hasWaitingAudio: Bool { false }

  /// Sources have no known end unless they say otherwise.
  public var totalDuration: TimeInterval? { nil }
}

/// The one format every ``SampleSource`` delivers.
public enum SampleFormat {
  /// Samples per second: what speech models such as pocketsphinx's `en-us` expect.
  public static let sampleRate = 16_000
}
