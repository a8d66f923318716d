import Foundation
import PocketSphinx
import SpeechClient

/// The transcript of a task so far: the finished utterances and the current partial one.
///
/// Turns ``DecoderEvent``s into the results the client delivers, whose
/// `bestTranscription.formattedString` is every finished utterance followed by the partial words.
struct Transcript: Equatable, Sendable {
  private var partialWords: [RecognizedWord] = []
  private var finishedText = Text()
  private var finishedSegments: [TranscriptionSegment] = []

  /// A string and its length in UTF-16 code units, which segment ranges are counted in
  /// (counting it again for every word would be quadratic in the transcript's length).
  private struct Text: Equatable, Sendable {
    var string = ""
    var utf16Count = 0

    /// Appends a word, separated by a space, and returns its range.
    mutating func append(_ word: String) -> TranscriptionSegment.SubstringRange {
      if !string.isEmpty {
        string += " "
        utf16Count += 1
      }
      let length = word.utf16.count
      defer { utf16Count += length }
      string += word
      return TranscriptionSegment.SubstringRange(location: utf16Count, length: length)
    }
  }

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
      bestTranscription: Transcription(formattedString: text.string, segments: segments),
      isFinal: isFinal
    )
  }

  private static func segment(
    for word: RecognizedWord, appendingTo text: inout Text
  ) -> TranscriptionSegment {
    TranscriptionSegment(
      substring: word.text,
      substringRange: text.append(word.text),
      timestamp: word.timestamp,
      duration: word.duration,
      confidence: word.confidence,
      alternativeSubstrings: word.alternatives
    )
  }
}
