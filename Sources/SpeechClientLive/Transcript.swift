import Foundation
import Recognition
import SpeechClient

/// The transcript of a task so far: the finished utterances and the current partial one.
///
/// Turns ``RecognitionEvent``s into the results the client delivers. Finished utterances go once into
/// a ``TranscriptionBuilder``'s shared storage, so a result costs the same however long the
/// transcript is; `bestTranscription.formattedString` is every finished utterance followed by the
/// partial words.
struct Transcript: Sendable {
  private var builder: TranscriptionBuilder

  /// An empty transcript that keeps at least the last `keptUtterances` finished utterances
  /// (``SpeechRecognitionRequest/keptUtterances``), or every one.
  init(keepingLast keptUtterances: Int? = nil) {
    builder = TranscriptionBuilder(keepingLast: keptUtterances)
  }

  /// Applies an event from the decoder.
  mutating func apply(_ event: RecognitionEvent) {
    switch event {
    case let .partial(words):
      builder.partialSegments = words.map(Self.segment)
    case let .utterance(words):
      builder.appendUtterance(words.map(Self.segment))
    case let .revision(words):
      builder.replaceLastUtterance(words.map(Self.segment))
    }
  }

  /// The result to deliver now.
  func result(isFinal: Bool, progress: RecognitionProgress? = nil) -> SpeechRecognitionResult {
    SpeechRecognitionResult(
      bestTranscription: builder.transcription, isFinal: isFinal, progress: progress)
  }

  private static func segment(for word: RecognizedWord) -> TranscriptionSegment {
    TranscriptionSegment(
      substring: word.text,
      timestamp: word.timestamp,
      duration: word.duration,
      confidence: word.confidence,
      alternativeSubstrings: word.alternatives,
      tokens: word.tokens.map { .init(bytes: $0.bytes, logprob: $0.logprob) }
    )
  }
}
