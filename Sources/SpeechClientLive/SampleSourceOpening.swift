import AudioInput
import SpeechClient

extension SpeechRecognitionRequest.AudioSource {
  /// Opens the source as samples to decode.
  func open(
    configuration: LiveSpeechConfiguration, stopSignal: StopSignal
  ) throws(SpeechClient.Failure) -> any SampleSource {
    switch self {
    case .microphone:
      try Microphone(device: nil, settings: configuration.pulseAudio, stopSignal: stopSignal)
    case let .device(name):
      try Microphone(device: name, settings: configuration.pulseAudio, stopSignal: stopSignal)
    case let .file(url):
      try AudioFile(url: url)
    case let .rawFile(url):
      try RawAudioFile(url: url)
    }
  }
}
