import Architecture
import Foundation
import SpeechClient
import SpeechRecognitionFeature
import Synchronization

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
  /// Receives recognition's start, as ``receiveRecognitionStarting(_:_:)`` does, for a
  /// recognition its child `holder` holds (a Wyoming utterance, a Realtime run).
  func receiveRecognitionStarting<Holder: RecognitionHolder>(
    in holder: WritableKeyPath<State, Holder?>,
    _ action: CaseKeyPath<Action, SpeechRecognition.Action>
  ) async {
    await receive(action.appending(path: \.start)) {
      $0[keyPath: holder]?.recognition.isRecording = true
      $0[keyPath: holder]?.recognition.status = .authorizing
    }
    await receive(action.appending(path: \.authorizationResponse)) {
      $0[keyPath: holder]?.recognition.status = .starting
    }
    await receive(action.appending(path: \.recognitionStarted)) {
      $0[keyPath: holder]?.recognition.status = .recording
    }
  }

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

/// The audios a session's recognition requests read, the very instances, in the order the
/// requests started: a test's speech client records them (``record(_:)``).
final class RequestedAudios: Sendable {
  private let audios = Mutex<[PushedAudio]>([])

  /// Records the pushed audio `request` reads.
  func record(_ request: SpeechRecognitionRequest) {
    guard case .pushed(let audio) = request.source else { return }
    audios.withLock { $0.append(audio) }
  }

  /// The audios recorded.
  var all: [PushedAudio] { audios.withLock { $0 } }

  /// Their sample rates, and whether each has ended.
  var summary: [Summary] { all.map { Summary(rate: $0.sampleRate, isFinished: $0.isFinished) } }

  struct Summary: Equatable {
    var rate: Int
    var isFinished: Bool
  }
}
