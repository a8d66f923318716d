import Foundation

/// A word the decoder recognized, with its place in the audio.
public struct RecognizedWord: Equatable, Sendable {
  /// The word, without pocketsphinx's pronunciation-variant suffix (`read(2)` → `read`).
  public var text: String
  /// When the word starts, in seconds from the start of the audio.
  public var timestamp: TimeInterval
  /// How long the word lasts, in seconds.
  public var duration: TimeInterval
  /// The word's posterior probability, 0…1; 0 while the utterance is still being decoded.
  public var confidence: Float
  /// Other words the n-best hypotheses put at the same place.
  public var alternatives: [String] = []

  /// Creates a word.
  public init(
    text: String, timestamp: TimeInterval, duration: TimeInterval, confidence: Float,
    alternatives: [String] = []
  ) {
    self.text = text
    self.timestamp = timestamp
    self.duration = duration
    self.confidence = confidence
    self.alternatives = alternatives
  }
}
