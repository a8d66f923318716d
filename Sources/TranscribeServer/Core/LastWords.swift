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
}

extension SpeechRecognition.State {
  /// Whether recognition is over: it has stopped, with its outcome (the last words, or why
  /// there are none).
  var isOver: Bool { status == .idle && outcome != nil }
}
