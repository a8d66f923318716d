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
  /// The finished utterances, each the segments up to one that ``TranscriptionSegment/endsUtterance``.
  /// In a final result, trailing words without the flag count as a last finished utterance.
  public func utterances(isFinal: Bool) -> [[TranscriptionSegment]] {
    var utterances: [[TranscriptionSegment]] = []
    var current: [TranscriptionSegment] = []
    for segment in segments {
      current.append(segment)
      if segment.endsUtterance {
        utterances.append(current)
        current = []
      }
    }
    if isFinal, !current.isEmpty { utterances.append(current) }
    return utterances
  }

  /// The words of the utterance still being spoken (after the last finished one).
  public var partialSegments: ArraySlice<TranscriptionSegment> {
    let lastEnd = segments.lastIndex(where: \.endsUtterance).map { $0 + 1 } ?? 0
    return segments[lastEnd...]
  }

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
  /// Whether this word is the last of a finished utterance (the speaker paused after it).
  ///
  /// Apple's segments have no such flag; it lets a host print finished utterances as lines and
  /// build subtitles from them, while the words after the last such segment are still partial.
  public var endsUtterance: Bool

  /// A range of UTF-16 code units.
  public struct SubstringRange: Equatable, Sendable, Codable {
    /// The offset of the first code unit.
    public var location: Int
    /// The number of code units.
    public var length: Int
    /// Creates a range.
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
    alternativeSubstrings: [String] = [],
    endsUtterance: Bool = false
  ) {
    self.substring = substring
    self.substringRange = substringRange
    self.timestamp = timestamp
    self.duration = duration
    self.confidence = confidence
    self.alternativeSubstrings = alternativeSubstrings
    self.endsUtterance = endsUtterance
  }
}
