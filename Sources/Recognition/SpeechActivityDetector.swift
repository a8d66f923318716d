import Foundation

/// Tells speech from background noise in 10 ms frames of 16 kHz audio by their energy.
///
/// A frame is speech when its energy is more than ``quietMargin`` (18 dB) above the background
/// level, which is tracked as the lowest recent frame energy: it starts from a quiet room's level
/// (so speech at the very start is not taken for background), drops to a quieter frame at once
/// and rises 2 dB a second otherwise (so it follows a noise floor that goes up). Digital silence
/// never pulls it down.
///
/// ```swift
/// var detector = SpeechActivityDetector()
/// for start in stride(from: 0, to: samples.count - 159, by: SpeechActivityDetector.frameLength) {
///   let energy = SpeechActivityDetector.energy(of: samples[start..<start + 160])
///   if detector.isSpeech(energy: energy) { print("speech at \(Double(start) / 16_000) s") }
/// }
/// ```
public struct SpeechActivityDetector: Equatable, Sendable {
  /// Samples per analysis frame: 10 ms.
  public static let frameLength = RecognitionAudio.sampleRate / 100
  /// How far above the background a frame may be and still be quiet, in dB.
  public static let quietMargin = 18.0
  /// How fast the background estimate rises, in dB per frame (2 dB a second).
  static let floorRise = 0.02
  /// Below this energy (dB of squared 16-bit samples) audio is digital silence and does not pull
  /// the background estimate down.
  static let silenceEnergy = 20.0
  /// The background level assumed before any quieter audio came: a quiet room's.
  static let initialFloor = 40.0

  /// The current background level, in dB.
  public private(set) var backgroundLevel = initialFloor

  /// Creates a detector that assumes a quiet room until it hears quieter audio.
  public init() {}

  /// Classifies the next frame by its energy (see ``energy(of:)``), updating the background
  /// level first; returns whether the frame is speech.
  public mutating func isSpeech(energy: Double) -> Bool {
    if energy >= Self.silenceEnergy {
      backgroundLevel = min(energy, backgroundLevel + Self.floorRise)
    }
    return energy >= max(backgroundLevel, Self.silenceEnergy) + Self.quietMargin
  }

  /// A frame's mean squared sample, in dB.
  public static func energy(of frame: some Collection<Int16>) -> Double {
    var sum = 0.0
    for sample in frame {
      let value = Double(sample)
      sum += value * value
    }
    return 10 * log10(sum / Double(max(frame.count, 1)) + 1)
  }
}
