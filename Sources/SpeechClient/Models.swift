import Foundation

/// A recognition result, shaped like Apple Speech's `SFSpeechRecognitionResult`.
///
/// ``bestTranscription`` holds the whole transcript so far: every finished utterance followed by
/// the current partial words. ``isFinal`` is true on the last result of a task. A result shares
/// the task's finished utterances instead of copying them, so it costs the same to deliver an
/// hour into a session as at its start.
public struct SpeechRecognitionResult: Equatable, Sendable, Codable {
  /// The most likely transcription.
  public var bestTranscription: Transcription
  /// Whether this is the last result of the task.
  public var isFinal: Bool
  /// Transcriptions in order of likelihood; the first is ``bestTranscription``.
  public var transcriptions: [Transcription]
  /// How far the recognizer has got through the audio, when it reports it.
  ///
  /// Apple's results carry `speechRecognitionMetadata`; this plays that part for progress: a file
  /// reports its length, so a host can show how much is done.
  public var progress: RecognitionProgress?

  /// Creates a result. `transcriptions` defaults to just the best one.
  public init(
    bestTranscription: Transcription, isFinal: Bool, transcriptions: [Transcription]? = nil,
    progress: RecognitionProgress? = nil
  ) {
    self.bestTranscription = bestTranscription
    self.isFinal = isFinal
    self.transcriptions = transcriptions ?? [bestTranscription]
    self.progress = progress
  }
}

/// How much audio a task has recognized, and of how much.
public struct RecognitionProgress: Equatable, Sendable, Codable {
  /// The audio decoded so far, in seconds from its start.
  public var audioDuration: TimeInterval
  /// The length of the whole input, in seconds, for sources that end (files); `nil` for live
  /// capture.
  public var totalAudioDuration: TimeInterval?
  /// The rate the input was recorded at, in Hz, when the recognizer knows it (files, standard
  /// input). Below ``recommendedSampleRate`` the audio lacks frequencies the model uses, so a
  /// host should say that accuracy suffers.
  public var recordedSampleRate: Int?
  /// The language the input was decoded in (`de`), when the recognizer detected it (a request
  /// with the `automatic` language); `nil` otherwise.
  public var detectedLanguage: String?

  /// The lowest recording rate the model is made for: 16 kHz.
  public static let recommendedSampleRate = 16_000

  /// Creates a progress report.
  public init(
    audioDuration: TimeInterval, totalAudioDuration: TimeInterval? = nil,
    recordedSampleRate: Int? = nil, detectedLanguage: String? = nil
  ) {
    self.audioDuration = audioDuration
    self.totalAudioDuration = totalAudioDuration
    self.recordedSampleRate = recordedSampleRate
    self.detectedLanguage = detectedLanguage
  }

  /// Whether the input was recorded below ``recommendedSampleRate``.
  public var isBelowRecommendedSampleRate: Bool {
    recordedSampleRate.map { $0 < Self.recommendedSampleRate } ?? false
  }

  /// The part done, 0…1, when the length is known.
  public var fractionCompleted: Double? {
    guard let totalAudioDuration else { return nil }
    guard totalAudioDuration > 0 else { return 1 }
    return min(1, max(0, audioDuration / totalAudioDuration))
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
  /// The tokens the recognizer wrote the word with, each with its log probability: filled by
  /// engines that decode tokens (Moonshine), empty otherwise. In a partial word (``confidence``
  /// 0) they are the decoder's latest look, which may still change. Not part of the coded form.
  public var tokens: [Token] = []

  /// A token of a word and how likely the recognizer found it.
  public struct Token: Equatable, Sendable {
    /// The token's bytes (UTF-8; a token may hold part of a character).
    public var bytes: [UInt8]
    /// The natural log of the token's probability when it was chosen.
    public var logprob: Double

    /// Creates a token.
    public init(bytes: [UInt8], logprob: Double) {
      self.bytes = bytes
      self.logprob = logprob
    }
  }

  private enum CodingKeys: String, CodingKey {
    case substring, substringRange, timestamp, duration, confidence, alternativeSubstrings
    case endsUtterance
  }

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
    endsUtterance: Bool = false,
    tokens: [Token] = []
  ) {
    self.tokens = tokens
    self.substring = substring
    self.substringRange = substringRange
    self.timestamp = timestamp
    self.duration = duration
    self.confidence = confidence
    self.alternativeSubstrings = alternativeSubstrings
    self.endsUtterance = endsUtterance
  }
}
