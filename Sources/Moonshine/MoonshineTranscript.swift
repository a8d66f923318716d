import Foundation
import Recognition

/// What ``MoonshineModel/transcribe(_:prefix:hotwords:)`` made of some audio: the tokens it chose, how
/// sure it was of each, and the text and words they spell.
///
/// The text is Moonshine's own, with its casing and punctuation (`Go forward ten meters.`); words
/// are the text split at spaces, so punctuation stays with its word.
///
/// ```swift
/// let transcript = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
/// print(transcript.text, transcript.words.map(\.confidence))
/// let words = transcript.recognizedWords(from: 0.3, to: 2.1)  // with estimated times
/// ```
public struct MoonshineTranscript: Equatable, Sendable {
  /// A word of the transcript.
  public struct Word: Equatable, Sendable {
    /// The word as written, with any punctuation attached.
    public var text: String
    /// The probability of the word's tokens: the product of each token's probability (its
    /// softmax at the step it was chosen), so a word is as sure as its least sure tokens allow.
    public var confidence: Float
    /// The indices (into ``MoonshineTranscript/tokens``) of the tokens that wrote the word.
    public var tokens: [Int]

    /// Creates a word.
    public init(text: String, confidence: Float, tokens: [Int]) {
      self.text = text
      self.confidence = confidence
      self.tokens = tokens
    }
  }

  /// Why decoding stopped.
  public enum Ending: Equatable, Sendable {
    /// The model ended the text (`</s>`).
    case endOfText
    /// The transcript reached the most tokens the audio's length allows
    /// (``MoonshineModel/maximumTokens(forSamples:)``): the audio was cut off or the model looped.
    case tokenLimit
    /// The transcript ended in the same few tokens three or more times over: a loop.
    case repetition
  }

  /// The chosen token ids, without `<s>` and `</s>`.
  public var tokens: [Int32]
  /// Each token's probability, 0…1.
  public var probabilities: [Float]
  /// Each token's bytes in the vocabulary (a space where the vocabulary marks a word's start).
  public var tokenBytes: [[UInt8]]
  /// The text, words separated by single spaces.
  public var text: String
  /// The words, in order.
  public var words: [Word]
  /// Why decoding stopped.
  public var ending: Ending
  /// How many tokens of the prefix the model agreed with and kept.
  public var keptPrefixCount: Int
  /// How many times the decoder ran.
  public var decoderSteps: Int
  /// Time spent in the encoder, in seconds.
  public var encoderSeconds: TimeInterval
  /// Time spent in the decoder, in seconds.
  public var decoderSeconds: TimeInterval
  /// What the model expected right after the last word (the step that wrote the final
  /// punctuation, or the end): `nil` when the transcript has no word or stopped right after it.
  public var afterLastWord: PauseSignals?
  /// Each word's start and end in seconds from the start of the audio transcribed, when the
  /// engine measures them (Whisper's token times); `nil` for Moonshine, whose word times are
  /// estimated.
  public var wordTimes: [ClosedRange<TimeInterval>]?

  /// Creates a transcript.
  public init(
    tokens: [Int32] = [], probabilities: [Float] = [], tokenBytes: [[UInt8]] = [],
    text: String = "", words: [Word] = [], ending: Ending = .endOfText, keptPrefixCount: Int = 0,
    decoderSteps: Int = 0,
    encoderSeconds: TimeInterval = 0, decoderSeconds: TimeInterval = 0,
    afterLastWord: PauseSignals? = nil
  ) {
    self.afterLastWord = afterLastWord
    self.tokens = tokens
    self.probabilities = probabilities
    self.tokenBytes = tokenBytes
    self.text = text
    self.words = words
    self.ending = ending
    self.keptPrefixCount = keptPrefixCount
    self.decoderSteps = decoderSteps
    self.encoderSeconds = encoderSeconds
    self.decoderSeconds = decoderSeconds
  }

  /// The tokens worth feeding back as the prefix of a longer decode of the same audio: all of
  /// them, less a loop the decode ended in.
  public var reusableTokens: [Int32] {
    switch ending {
    case .endOfText: tokens
    case .tokenLimit, .repetition: Array(tokens.prefix(MoonshineModel.loopStart(in: tokens)))
    }
  }

  /// The words with their times: measured ones (``wordTimes``, from `audioStart`, the time of
  /// the first sample transcribed) when the engine gave them, else estimates: the span from
  /// `start` to `end` (where speech was heard) is shared among the words in proportion to their
  /// lengths in characters.
  ///
  /// - Parameter isPartial: whether the words are a partial result. A partial word's confidence
  ///   is 0, as every engine reports it while the utterance goes on, but its tokens carry the
  ///   decoder's log probabilities so far: how sure this look at the audio is of the word.
  public func recognizedWords(
    from start: TimeInterval, to end: TimeInterval, isPartial: Bool = false,
    audioStart: TimeInterval? = nil
  ) -> [RecognizedWord] {
    let characters = words.reduce(0) { $0 + max(1, $1.text.count) }
    guard characters > 0 else { return [] }
    let perCharacter = max(0, end - start) / Double(characters)
    var time = start
    return words.enumerated().map { index, word in
      let estimate = Double(max(1, word.text.count)) * perCharacter
      defer { time += estimate }
      var (timestamp, duration) = (time, estimate)
      if let audioStart, let wordTimes, wordTimes.count == words.count {
        (timestamp, duration) = (
          audioStart + wordTimes[index].lowerBound,
          wordTimes[index].upperBound - wordTimes[index].lowerBound
        )
      }
      let tokens = word.tokens.filter { $0 < probabilities.count }.map { index in
        RecognizedToken(
          bytes: index < tokenBytes.count ? tokenBytes[index] : [],
          logprob: log(Double(max(probabilities[index], .leastNormalMagnitude))))
      }
      return RecognizedWord(
        text: word.text, timestamp: timestamp, duration: duration,
        confidence: isPartial ? 0 : word.confidence, tokens: tokens)
    }
  }
}

/// How the model's next token was spread, at one step of decoding: the signals the recognizer
/// reads at a pause, right after the last word, to tell a finished sentence from an unfinished
/// one (see ``SentenceEnd``).
public struct PauseSignals: Equatable, Sendable {
  /// The probability of sentence-ending punctuation (`. ? ! …`, maybe with closing quotes).
  public var terminal: Float
  /// The probability of punctuation that goes on (`, ; : —`).
  public var continuing: Float
  /// The probability of another word: anything but punctuation and the end of the text.
  public var word: Float

  /// Creates the signals.
  public init(terminal: Float, continuing: Float, word: Float) {
    self.terminal = terminal
    self.continuing = continuing
    self.word = word
  }
}
