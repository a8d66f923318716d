import Foundation
import Recognition

/// What writes down the audio of an utterance for a ``MoonshineRecognizer`` when another
/// engine's decoder does it in place of Moonshine's model (Whisper's, in the `Whisper` module):
/// the recognizer cuts the stream into utterances with its voice-activity detector, takes its
/// looks for partial results, and judges sentences; the transcriber turns each piece of audio
/// into text.
///
/// A transcriber belongs to one recognizer and is used on its thread only.
///
/// ```swift
/// let recognizer = try MoonshineRecognizer(
///   configuration: segmentation, transcriber: try WhisperTranscriber(configuration: whisper))
/// ```
public protocol UtteranceTranscriber: AnyObject {
  /// Transcribes 16 kHz mono audio in [-1, 1].
  ///
  /// - Parameters:
  ///   - prefix: the tokens of the last look at the beginning of the same audio, which a
  ///     transcriber may reuse or ignore;
  ///   - phrases: phrases to favour (names of rooms, lamps, people), maybe none.
  func transcribe(
    _ audio: UnsafeBufferPointer<Float>, prefix: [Int32], favouring phrases: [String]
  ) throws(RecognitionFailure) -> MoonshineTranscript

  /// Forgets what it learned of the stream (a detected language): the next audio is a new
  /// stream's.
  func reset()
}
