/// Builds the transcriptions a recognizer delivers: finished utterances are appended once to
/// storage that every result shares, and the partial words are replaced as they change.
///
/// Getting ``transcription`` costs time proportional to the partial words only, never to the
/// transcript's length. The builder is a value: a copy that appends after the original has
/// appended gets storage of its own.
///
/// ```swift
/// var builder = TranscriptionBuilder()
/// builder.partialSegments = [go]
/// continuation.yield(SpeechRecognitionResult(bestTranscription: builder.transcription, isFinal: false))
/// builder.appendUtterance([go, forward])
/// ```
public struct TranscriptionBuilder: Sendable {
  private var storage = UtteranceStorage()
  private var finished = UtteranceStorage.Prefix()

  /// The words of the utterance still being spoken; their ranges are computed when read.
  public var partialSegments: [TranscriptionSegment] = []

  /// Creates an empty builder.
  public init() {}

  /// The number of finished utterances.
  public var finishedUtteranceCount: Int { finished.utterances }

  /// Ends an utterance with these words: they become finished (the last one
  /// ``TranscriptionSegment/endsUtterance``) and the partial words are cleared. An empty
  /// utterance only clears the partial words.
  public mutating func appendUtterance(_ words: [TranscriptionSegment]) {
    partialSegments = []
    guard !words.isEmpty else { return }
    if let prefix = storage.append(words, after: finished) {
      finished = prefix
    } else {
      storage = storage.copy(finished)
      finished = storage.append(words, after: finished)!
    }
  }

  /// Replaces the last finished utterance's words (a recognizer heard it again together with
  /// what followed it: see `RecognitionEvent.revision`) and clears the partial words; with no
  /// finished utterance, appends one. Earlier transcriptions keep the words they had. It copies
  /// the finished words once (a revision is rare: only dictation asks for them).
  public mutating func replaceLastUtterance(_ words: [TranscriptionSegment]) {
    guard finished.utterances > 0 else { return appendUtterance(words) }
    partialSegments = []
    let kept = storage.dropping(lastOf: finished)
    storage = storage.copy(kept)
    finished = kept
    appendUtterance(words)
  }

  /// The transcription so far: the finished utterances and the partial words.
  public var transcription: Transcription {
    var location = finished.utf16Count
    var partial = partialSegments
    for index in partial.indices {
      if location > 0 { location += 1 }
      let length = partial[index].substring.utf16.count
      partial[index].substringRange = .init(location: location, length: length)
      partial[index].endsUtterance = false
      location += length
    }
    return Transcription(storage: storage, finished: finished, partialSegments: partial)
  }
}
