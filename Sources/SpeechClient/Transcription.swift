import Foundation

/// A transcription: the text and the words it is made of, shaped like `SFTranscription`.
///
/// The finished utterances live in storage shared by every result of a task (see
/// ``TranscriptionBuilder``), so copying a transcription, or delivering a new one for each
/// partial word, costs the same however long the transcript has grown. ``formattedString`` is
/// built when read; a host that follows a long session reads the new ``finishedUtterances`` and
/// the ``partialSegments`` instead.
///
/// ```swift
/// var builder = TranscriptionBuilder()
/// builder.appendUtterance([go, forward])
/// builder.partialSegments = [ten]
/// builder.transcription.formattedString  // "go forward ten"
/// ```
public struct Transcription: Sendable {
  let storage: UtteranceStorage
  let finished: UtteranceStorage.Prefix
  /// The words of the utterance still being spoken, after the finished ones.
  public let partialSegments: [TranscriptionSegment]

  init(
    storage: UtteranceStorage, finished: UtteranceStorage.Prefix,
    partialSegments: [TranscriptionSegment]
  ) {
    self.storage = storage
    self.finished = finished
    self.partialSegments = partialSegments
  }

  /// Creates a transcription from its words: each run of segments up to one that
  /// ``TranscriptionSegment/endsUtterance`` is a finished utterance, the words after the last
  /// such segment are partial. Ranges in the text are computed.
  public init(segments: [TranscriptionSegment]) {
    var builder = TranscriptionBuilder()
    var utterance: [TranscriptionSegment] = []
    for segment in segments {
      utterance.append(segment)
      if segment.endsUtterance {
        builder.appendUtterance(utterance)
        utterance = []
      }
    }
    builder.partialSegments = utterance
    self = builder.transcription
  }

  /// The text: every word, separated by single spaces. Built when read, in time proportional to
  /// the transcript's length. A task that keeps only the latest utterances has their text.
  public var formattedString: String {
    let finishedText = storage.text(of: finished)
    guard !partialSegments.isEmpty else { return finishedText }
    let partialText = partialSegments.map(\.substring).joined(separator: " ")
    return finishedText.isEmpty ? partialText : finishedText + " " + partialText
  }

  /// The words, in order, with their timing: the finished utterances', then the partial ones
  /// (of a task that keeps only the latest utterances, the words of those kept).
  public var segments: Segments {
    Segments(storage: storage, finishedCount: finished.segments, partial: partialSegments)
  }

  /// The finished utterances, oldest first; reading one costs the same wherever it is.
  ///
  /// Utterance `n` is the `n`th of the task (from 0) however many came before. A task that
  /// keeps only the latest ones (``SpeechRecognitionRequest/keptUtterances``) starts at the
  /// first it still holds: read from `startIndex` to `endIndex`.
  public var finishedUtterances: Utterances {
    Utterances(
      storage: storage, startIndex: storage.firstUtterance,
      endIndex: storage.firstUtterance + finished.utterances)
  }

  /// The words of a transcription: a random-access view that copies nothing.
  public struct Segments: RandomAccessCollection, Sendable {
    let storage: UtteranceStorage
    let finishedCount: Int
    let partial: [TranscriptionSegment]

    /// The first index, 0.
    public var startIndex: Int { 0 }
    /// The number of words.
    public var endIndex: Int { finishedCount + partial.count }

    /// The word at `position`.
    public subscript(position: Int) -> TranscriptionSegment {
      position < finishedCount
        ? storage.segment(at: position) : partial[position - finishedCount]
    }
  }

  /// The finished utterances of a transcription, each the words up to a pause.
  public struct Utterances: RandomAccessCollection, Sendable {
    let storage: UtteranceStorage
    /// The number of the first utterance held: 0, unless older ones were forgotten.
    public let startIndex: Int
    /// The number of utterances finished so far, forgotten ones included.
    public let endIndex: Int

    /// The words of utterance `position`.
    public subscript(position: Int) -> ArraySlice<TranscriptionSegment> {
      precondition(position >= startIndex && position < endIndex, "utterance index out of range")
      return storage.utterance(at: position - startIndex)
    }

    /// The numbers of the utterances held from `first` on: what a host that has taken the
    /// utterances before `first` takes next (those forgotten meanwhile are skipped).
    public func indices(from first: Int) -> Range<Int> {
      Swift.min(Swift.max(first, startIndex), endIndex)..<endIndex
    }
  }
}

extension Transcription: Equatable {
  /// Transcriptions are equal when they have the same words split into the same utterances.
  /// Two results of the same task compare without reading the shared words.
  public static func == (lhs: Transcription, rhs: Transcription) -> Bool {
    guard lhs.finished == rhs.finished, lhs.partialSegments == rhs.partialSegments,
      lhs.storage.firstUtterance == rhs.storage.firstUtterance
    else {
      return false
    }
    if lhs.storage === rhs.storage { return true }
    let range = 0..<lhs.finished.segments
    return lhs.storage.segments(range) == rhs.storage.segments(range)
  }
}

extension Transcription: Codable {
  private enum CodingKeys: String, CodingKey {
    case formattedString
    case segments
  }

  /// Decodes the words; the text is rebuilt from them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(segments: try container.decode([TranscriptionSegment].self, forKey: .segments))
  }

  /// Encodes the text and the words, as Apple's shape has them.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(formattedString, forKey: .formattedString)
    try container.encode(Array(segments), forKey: .segments)
  }
}

extension Transcription: CustomReflectable {
  /// Shows the text and words (as test diffs print them), not the shared storage.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: ["formattedString": formattedString, "segments": Array(segments)],
      displayStyle: .struct)
  }
}
