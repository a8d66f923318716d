import Foundation

/// What feeding audio to a ``SpeechRecognizer`` produced.
public enum RecognitionEvent: Equatable, Sendable {
  /// The current utterance's hypothesis changed.
  case partial([RecognizedWord])
  /// An utterance ended; these are its final words.
  case utterance([RecognizedWord])

  /// The event's words.
  public var words: [RecognizedWord] {
    switch self {
    case let .partial(words), let .utterance(words): words
    }
  }

  /// The same event with every word moved `offset` seconds later.
  public func shifted(by offset: TimeInterval) -> RecognitionEvent {
    switch self {
    case let .partial(words): .partial(words.map { $0.shifted(by: offset) })
    case let .utterance(words): .utterance(words.map { $0.shifted(by: offset) })
    }
  }
}
