import Architecture
import SpeechRecognitionFeature

/// How every streaming session asks for its last words once its audio is over.
enum LastWords {
  /// Ends the audio with `endAudio`, then sends `audioEnded` (the stream's
  /// ``StreamSession/Action/audioEnded``) if recognition is recording, for the session to
  /// ``stop(_:endedAfter:audioMessages:finish:)`` it.
  ///
  /// A stop goes out once the audio has ended, so it cannot overtake it. Stopping while
  /// authorizing would cancel recognition: then the end of the audio ends the task by itself.
  static func ask<Action>(
    _ recognition: SpeechRecognition.State?, endAudio: Effect<Action>, audioEnded: Action
  ) -> Effect<Action> {
    guard recognition?.status == .recording else { return endAudio }
    return .concatenate(endAudio, .send(audioEnded))
  }

  /// Once the audio has ended after message `last`: asks recognition to `finish` if it still
  /// records that audio — the session's last audio message is still `last` (`audioMessages`;
  /// a new run of recognition starts with a number of its own).
  ///
  /// Ending the audio takes a while (its effect runs later), and recognition can
  /// end by itself meanwhile — the session may have dropped it, or started another. So the
  /// session decides when the audio *has* ended, from the state it has then; a stop sent
  /// straight away could reach a recognition that is no longer there.
  static func stop<Action>(
    _ recognition: SpeechRecognition.State?, endedAfter last: Int, audioMessages: Int,
    finish: Action
  ) -> Effect<Action> {
    guard recognition?.status == .recording, audioMessages == last else { return .none }
    return .send(finish)
  }

  /// The audio is over: asks for the last words (``ask(_:endAudio:audioEnded:)``) and awaits them
  /// with `timers` for ``ServerConfiguration/finalWait``, within the shutdown grace period when
  /// the session is `closing` for the shutdown; when recognition is over already they are in,
  /// and `arrived` handles them at once.
  static func await<Action, Problem: StreamProblem>(
    _ recognition: SpeechRecognition.State?, endAudio: Effect<Action>, audioEnded: Action,
    closing: Problem?, timers: SessionTimers<Action>, arrived: () -> Effect<Action>
  ) -> Effect<Action> {
    let asked = Effect.merge(
      timers.awaitLastWords(shuttingDown: closing == .session(.shuttingDown)),
      ask(recognition, endAudio: endAudio, audioEnded: audioEnded))
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
