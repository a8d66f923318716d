import Moonshine
import SpeechClient
import Whisper

extension LiveSpeechConfiguration {
  /// Starts loading the model that will decode `request`, on a thread of its own, and returns at
  /// once: a command that checks its options and opens its inputs first finds the model loaded,
  /// or loading, when its first recognizer needs it (the models are shared by the process).
  ///
  /// Nothing is reported from here: a model that cannot load fails the session that needs it,
  /// with that session's message. A request whose engine depends on its audio (`--language
  /// auto`) or that pocketsphinx decodes loads nothing ahead.
  public func startLoadingModel(for request: SpeechRecognitionRequest) {
    guard request.language != .automatic else { return }
    let live = modelLoadingConfiguration
    DedicatedThread.start(name: "transcribe.model") {
      switch try? live.pooledEngine(for: request) {
      case .moonshine(let moonshine): _ = try? MoonshineModel.shared(moonshine)
      case .whisper(let whisper): _ = try? WhisperModel.shared(whisper)
      case .pocketsphinx, nil: break
      }
    }
  }

  /// The settings ``startLoadingModel(for:)`` builds its engine with: these, with the energy
  /// detector. The model does not depend on the detector, and the energy detector's settings
  /// name the same model without loading Silero VAD's, which the command loads meanwhile.
  var modelLoadingConfiguration: LiveSpeechConfiguration {
    var withoutSilero = self
    withoutSilero.voiceActivity.detector = .energy
    return withoutSilero
  }
}
