import Architecture
import Foundation
import SpeechClient
import SpeechRecognitionFeature

@testable import TranscribeServer

extension SpeechRecognitionResult {
  /// A result as a streaming session's tests hear it: `partial` words after `finished`
  /// utterances, each word 0.2 s long, with the decoder at `position`.
  static func heard(
    _ partial: String, finished: [String] = [], at position: TimeInterval
  ) -> SpeechRecognitionResult {
    var segments: [TranscriptionSegment] = []
    var time = 0.0
    for (utterance, isFinished) in finished.map({ ($0, true) }) + [(partial, false)] {
      let tokens = utterance.split(separator: " ").map(String.init)
      for (index, token) in tokens.enumerated() {
        segments.append(
          TranscriptionSegment(
            substring: token, timestamp: time, duration: 0.2, confidence: 1,
            endsUtterance: isFinished && index == tokens.count - 1))
        time += 0.2
      }
    }
    return SpeechRecognitionResult(
      bestTranscription: Transcription(segments: segments), isFinal: false,
      progress: RecognitionProgress(audioDuration: position))
  }
}

extension TestStore {
  /// Receives recognition's start as every session sees it with an authorized client:
  /// authorizing, starting, then recording.
  func receiveRecognitionStarting(
    _ recognition: WritableKeyPath<State, SpeechRecognition.State?>,
    _ action: CaseKeyPath<Action, SpeechRecognition.Action>
  ) async {
    await receive(action.appending(path: \.start)) {
      $0[keyPath: recognition]?.isRecording = true
      $0[keyPath: recognition]?.status = .authorizing
    }
    await receive(action.appending(path: \.authorizationResponse)) {
      $0[keyPath: recognition]?.status = .starting
    }
    await receive(action.appending(path: \.recognitionStarted)) {
      $0[keyPath: recognition]?.status = .recording
    }
  }
}
