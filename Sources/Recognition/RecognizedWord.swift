import Foundation

/// A word a recognizer heard, with its place in the audio: the same shape whichever engine
/// recognized it.
public struct RecognizedWord: Equatable, Sendable {
  /// The word as written (pocketsphinx's pronunciation-variant suffix removed: `read(2)` →
  /// `read`).
  public var text: String
  /// When the word starts, in seconds from the start of the audio.
  public var timestamp: TimeInterval
  /// How long the word lasts, in seconds.
  public var duration: TimeInterval
  /// How sure the engine is of the word, 0…1; 0 while the utterance is still being decoded.
  public var confidence: Float
  /// Other words the engine considered at the same place (none when the engine has no such
  /// search).
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

  /// The same word moved `offset` seconds later.
  public func shifted(by offset: TimeInterval) -> RecognizedWord {
    var word = self
    word.timestamp += offset
    return word
  }
}
