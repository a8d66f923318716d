import Foundation

/// A recognition result, shaped like Apple Speech's `SFSpeechRecognitionResult`.
///
/// ``bestTranscription`` holds the whole transcript so far: every finished utterance followed by
/// the current partial words. ``isFinal`` is true on the last result of a task.
public struct SpeechRecognitionResult: Equatable, Sendable, Codable {
  /// The most likely transcription.
  public var bestTranscription: Transcription
  /// Whether this is the last result of the task.
  public var isFinal: Bool
  /// Transcriptions in order of likelihood; the first is ``bestTranscription``.
  public var transcriptions: [Transcription]

  /// Creates a result. `transcriptions` defaults to just the best one.
  public init(
    bestTranscription: Transcription, isFinal: Bool, transcriptions: [Transcription]? = nil
  ) {
    self.bestTranscription = bestTranscription
    self.isFinal = isFinal
    self.transcriptions = transcriptions ?? [bestTranscription]
  }
}

/// A transcription: the text and the words it is made of, shaped like `SFTranscription`.
public struct Transcription: Equatable, Sendable, Codable {
  /// The text, words separated by single spaces.
  public var formattedString: String
  /// The words, in order, with their timing.
  public var segments: [TranscriptionSegment]

  /// Creates a transcription.
  public init(formattedString: String, segments: [TranscriptionSegment]) {
    self.formattedString = formattedString
    self.segments = segments
  }
}

/// One recognized word, shaped like `SFTranscriptionSegment`.
public struct TranscriptionSegment: Equatable, Sendable, Codable {
  /// The word as it appears in the transcription.
  public var substring: String
  /// Where the word is in `formattedString`, as a UTF-16 offset and length (like `NSRange`).
  public var substringRange: SubstringRange
  /// When the word starts, in seconds from the start of the audio.
  public var timestamp: TimeInterval
  /// How long the word lasts, in seconds.
  public var duration: TimeInterval
  /// The recognizer's confidence in the word, from 0 to 1.
  public var confidence: Float
  /// Other words the recognizer considered for this place.
  public var alternativeSubstrings: [String]

  /// A range of UTF-16 code units.
  public struct SubstringRange: Equatable, Sendable, Codable {
    public var location: Int
    public var length: Int
    public init(location: Int, length: Int) {
      self.location = location
      self.length = length
    }
  }

  /// Creates a segment.
  public init(
    substring: String,
    substringRange: SubstringRange = SubstringRange(location: 0, length: 0),
    timestamp: TimeInterval,
    duration: TimeInterval,
    confidence: Float,
    alternativeSubstrings: [String] = []
  ) {
    self.substring = substring
    self.substringRange = substringRange
    self.timestamp = timestamp
    self.duration = duration
    self.confidence = confidence
    self.alternativeSubstrings = alternativeSubstrings
  }
}
