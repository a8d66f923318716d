import Foundation
import SpeechClient

/// The transcript of a task so far: the finished utterances and the current partial one.
///
/// Turns ``DecoderEvent``s into the results the client delivers, whose
/// `bestTranscription.formattedString` is every finished utterance followed by the partial words.
struct Transcript: Equatable, Sendable {
  private(set) var partialWords: [RecognizedWord] = []
  private var finishedText = ""
  private var finishedSegments: [TranscriptionSegment] = []

  /// Applies an event from the decoder.
  mutating func apply(_ event: DecoderEvent) {
    switch event {
    case let .partial(words):
      partialWords = words
    case let .utterance(words):
      partialWords = []
      for word in words {
        finishedSegments.append(Self.segment(for: word, appendingTo: &finishedText))
      }
      if !words.isEmpty {
        finishedSegments[finishedSegments.count - 1].endsUtterance = true
      }
    }
  }

  /// The result to deliver now.
  func result(isFinal: Bool) -> SpeechRecognitionResult {
    var text = finishedText
    var segments = finishedSegments
    for word in partialWords {
      segments.append(Self.segment(for: word, appendingTo: &text))
    }
    return SpeechRecognitionResult(
      bestTranscription: Transcription(formattedString: text, segments: segments),
      isFinal: isFinal
    )
  }

  private static func segment(
    for word: RecognizedWord, appendingTo text: inout String
  ) -> TranscriptionSegment {
    if !text.isEmpty { text += " " }
    let location = text.utf16.count
    text += word.text
    return TranscriptionSegment(
      substring: word.text,
      substringRange: .init(location: location, length: word.text.utf16.count),
      timestamp: word.timestamp,
      duration: word.duration,
      confidence: word.confidence,
      alternativeSubstrings: word.alternatives
    )
  }
}
