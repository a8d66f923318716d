import Architecture
import SpeechRecognitionFeature

/// How every streaming session asks for its last words once its audio is over.
enum LastWords {
  /// Ends the audio with `endAudio`, then asks recognition to `finish` if it is recording.
  ///
  /// A stop goes out once the audio has ended, so it cannot overtake it. Stopping while
  /// authorizing would cancel recognition: then the end of the audio ends the task by itself.
  static func ask<Action>(
    _ recognition: SpeechRecognition.State?, endAudio: Effect<Action>, finish: Action
  ) -> Effect<Action> {
    guard recognition?.status == .recording else { return endAudio }
    return .concatenate(endAudio, .send(finish))
  }

  /// The audio is over: asks for the last words (``ask(_:endAudio:finish:)``) and awaits them
  /// with `timers` for ``ServerConfiguration/finalWait``, within the shutdown grace period when
  /// the session is `closing` for the shutdown; when recognition is over already they are in,
  /// and `arrived` handles them at once.
  static func await<Action, Problem: StreamProblem>(
    _ recognition: SpeechRecognition.State?, endAudio: Effect<Action>, finish: Action,
    closing: Problem?, timers: SessionTimers<Action>, arrived: () -> Effect<Action>
  ) -> Effect<Action> {
    let asked = Effect.merge(
      timers.awaitLastWords(shuttingDown: closing == .session(.shuttingDown)),
      ask(recognition, endAudio: endAudio, finish: finish))
    guard recognition?.isOver == true else { return asked }
    return .merge(asked, arrived())
  }

  /// Why the last words of a recognition that is over cannot be trusted to be complete: it
  /// failed, or its stop was not answered in time (and, with `orNotAuthorized`, it may not
  /// run); `nil` when they can.
  static func problem(
    _ recognition: SpeechRecognition.State?, orNotAuthorized: Bool = false
  ) -> RecognitionProblem? {
    switch recognition?.outcome {
    case .failed, .stopTimedOut: RecognitionProblem(recognition?.outcome)
    case .notAuthorized where orNotAuthorized: RecognitionProblem(recognition?.outcome)
    default: nil
    }
  }
}

extension SpeechRecognition.State {
  /// Whether recognition is over: it has stopped, with its outcome (the last words, or why
  /// there are none).
  var isOver: Bool { status == .idle && outcome != nil }
}
