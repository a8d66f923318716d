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
  /// The tokens the engine wrote the word with, each with its log probability, when the engine
  /// decodes tokens (Moonshine); none for an engine that decodes whole words (pocketsphinx). A
  /// partial result's tokens tell how sure the decoder is of the word so far, while its
  /// ``confidence`` stays 0.
  public var tokens: [RecognizedToken] = []

  /// Creates a word.
  public init(
    text: String, timestamp: TimeInterval, duration: TimeInterval, confidence: Float,
    alternatives: [String] = [], tokens: [RecognizedToken] = []
  ) {
    self.text = text
    self.timestamp = timestamp
    self.duration = duration
    self.confidence = confidence
    self.alternatives = alternatives
    self.tokens = tokens
  }

  /// The same word moved `offset` seconds later.
  public func shifted(by offset: TimeInterval) -> RecognizedWord {
    var word = self
    word.timestamp += offset
    return word
  }
}

/// A token an engine chose while writing a word, and how likely it was.
public struct RecognizedToken: Equatable, Sendable {
  /// The token's bytes as the engine's vocabulary writes them (UTF-8; a token may hold part of
  /// a character, and a space before a word is part of the word's first token).
  public var bytes: [UInt8]
  /// The natural log of the token's probability when it was chosen (0 is certain).
  public var logprob: Double

  /// Creates a token.
  public init(bytes: [UInt8], logprob: Double) {
    self.bytes = bytes
    self.logprob = logprob
  }
}
