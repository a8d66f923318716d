import Foundation

/// Pushed audio (a ``PushedSampleQueue``, e.g. a server's connection) as a ``SampleSource``: waits for
/// the host's samples in short slices, so a stop is noticed at once, and converts them to 16 kHz.
///
/// After a stop it still delivers what was pushed before (the words the speaker already said),
/// then ends; a stop that discards pending audio ends at once.
///
/// ```swift
/// let audio = PushedAudio(sampleRate: 8_000)   // the speech client's queue
/// let source = try PushedSamples(audio, stopSignal: stopSignal)
/// while let samples = try source.read() { decode(samples) }
/// ```
public final class PushedSamples: SampleSource {
  private let audio: any PushedSampleQueue
  private let stopSignal: StopSignal?
  private let resampler: Resampler?
  private var isEnded = false

  /// How long one wait for audio lasts before the stop signal is checked again.
  static let waitSlice = Duration.milliseconds(50)
  /// The most input samples converted and returned at a time: a quarter second at 48 kHz.
  static let chunkLimit = 12_000

  /// Reads `audio`; raising `stopSignal` ends the stream once what was pushed has been read.
  ///
  /// - Throws: `AudioInputFailure.conversionFailed` when the rate converter cannot start.
  public init(
    _ audio: any PushedSampleQueue, stopSignal: StopSignal? = nil
  ) throws(AudioInputFailure) {
    self.audio = audio
    self.stopSignal = stopSignal
    if audio.sampleRate == SampleFormat.sampleRate {
      resampler = nil
    } else {
      do {
        resampler = try Resampler(
          ratio: Double(SampleFormat.sampleRate) / Double(audio.sampleRate))
      } catch {
        throw .conversionFailed(error.reason)
      }
    }
  }

  /// What was pushed before a stop is still decoded.
  public var drainsWhenStopped: Bool { true }

  /// Whether the host has pushed more than was read, or has finished.
  public var hasWaitingAudio: Bool { !isEnded && audio.hasWaitingSamples }

  /// The rate the host declared.
  public var recordedSampleRate: Int? { audio.sampleRate }

  /// Pushed audio has no known end.
  public var progress: Double? { nil }

  /// The next samples at 16 kHz (possibly none while the converter fills); `nil` at the end.
  ///
  /// - Throws: `AudioInputFailure.conversionFailed` when the rate conversion fails.
  public func read() throws(AudioInputFailure) -> [Int16]? {
    guard !isEnded else { return nil }
    while true {
      if let stopSignal, stopSignal.isStopped {
        if stopSignal.discardsPendingAudio { return try end(flushing: false) }
        // Drain what was pushed before the stop, without waiting for more.
        switch audio.nextSamples(maximumCount: Self.chunkLimit, timeout: .zero) {
        case .samples(let samples): return try convert(samples, isLast: false)
        case .timedOut, .finished: return try end(flushing: true)
        }
      }
      switch audio.nextSamples(maximumCount: Self.chunkLimit, timeout: Self.waitSlice) {
      case .samples(let samples): return try convert(samples, isLast: false)
      case .finished: return try end(flushing: true)
      case .timedOut: continue
      }
    }
  }

  private func end(flushing: Bool) throws(AudioInputFailure) -> [Int16]? {
    isEnded = true
    guard flushing, resampler != nil else { return nil }
    let rest = try convert([], isLast: true)
    return rest.isEmpty ? nil : rest
  }

  private func convert(_ samples: [Int16], isLast: Bool) throws(AudioInputFailure) -> [Int16] {
    guard let resampler else { return samples }
    let input = samples.map { Float($0) / 32_768 }
    let output: [Float]
    do {
      output = try resampler.process(input, isLast: isLast)
    } catch {
      throw .conversionFailed(error.reason)
    }
    return output.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
  }
}
