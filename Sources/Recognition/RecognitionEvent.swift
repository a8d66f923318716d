import Foundation

/// What feeding audio to a ``SpeechRecognizer`` produced.
public enum RecognitionEvent: Equatable, Sendable {
  /// The current utterance's hypothesis changed.
  case partial([RecognizedWord])
  /// An utterance ended; these are its final words.
  case utterance([RecognizedWord])
  /// Speech resumed soon after the last utterance ended a sentence, and heard together the two
  /// read as one sentence: these words replace the last utterance's final words (they hold its
  /// words and the new ones). Only a recognizer asked to revise resumed sentences reports it
  /// (``SpeechRecognizer/tuneResumption(window:)``).
  case revision([RecognizedWord])

  /// The event's words.
  public var words: [RecognizedWord] {
    switch self {
    case let .partial(words), let .utterance(words), let .revision(words): words
    }
  }

  /// The same event with every word moved `offset` seconds later.
  public func shifted(by offset: TimeInterval) -> RecognitionEvent {
    switch self {
    case let .partial(words): .partial(words.map { $0.shifted(by: offset) })
    case let .utterance(words): .utterance(words.map { $0.shifted(by: offset) })
    case let .revision(words): .revision(words.map { $0.shifted(by: offset) })
    }
  }
}
