/// Builds the transcriptions a recognizer delivers: finished utterances are appended once to
/// storage that every result shares, and the partial words are replaced as they change.
///
/// Getting ``transcription`` costs time proportional to the partial words only, never to the
/// transcript's length. The builder is a value: a copy that appends after the original has
/// appended gets storage of its own.
///
/// A builder made with ``init(keepingLast:)`` forgets the oldest finished utterances as new ones
/// come, so a session of hours holds no more than the latest (a host that takes each utterance
/// as it finishes, such as dictation, needs no more): its transcriptions' ``Transcription/finishedUtterances``
/// then start at the first one kept, and their ``Transcription/segments`` and
/// ``Transcription/formattedString`` hold the kept words only.
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
  /// How many of the latest finished utterances are kept at least, or `nil` to keep every one.
  /// Older ones are forgotten in batches: between this many and twice as many are held.
  public let keptUtterances: Int?

  /// Creates an empty builder that keeps at least the last `count` finished utterances (at least
  /// one) and forgets older ones; `nil` (the default) keeps every one.
  public init(keepingLast count: Int? = nil) {
    keptUtterances = count.map { max(1, $0) }
  }

  /// The number of finished utterances, forgotten ones included.
  public var finishedUtteranceCount: Int { storage.firstUtterance + finished.utterances }

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
    if let keptUtterances, finished.utterances > 2 * keptUtterances {
      // The oldest go in one copy of the rest, so each utterance is copied about once.
      (storage, finished) = storage.copy(
        finished, droppingFirst: finished.utterances - keptUtterances)
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
