import Architecture
import SpeechRecognitionFeature

/// A child state that holds one recognition and what belongs to it alone: a Wyoming utterance,
/// a Realtime run.
protocol RecognitionHolder: Equatable {
  var recognition: SpeechRecognition.State { get set }
}

/// Runs ``SpeechRecognition`` on a child that holds it (``RecognitionHolder``), for a session's
/// `ifLet`: ending the child is setting it to `nil`, which drops everything that belonged to it
/// at once and cancels its recognition's effects with it.
///
/// ```swift
/// .ifLet(\.run, action: \.recognition) { Recognizing<Run>() }
/// ```
struct Recognizing<Child: RecognitionHolder>: Reducer {
  func reduce(
    into state: inout Child, action: SpeechRecognition.Action
  ) -> Effect<SpeechRecognition.Action> {
    SpeechRecognition().reduce(into: &state.recognition, action: action)
  }
}
