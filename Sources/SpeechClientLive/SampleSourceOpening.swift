import AudioInput
import SpeechClient

extension SpeechRecognitionRequest.AudioSource {
  /// Opens the source as samples to decode.
  func open(
    configuration: LiveSpeechConfiguration, stopSignal: StopSignal
  ) throws(AudioInputFailure) -> any SampleSource {
    switch self {
    case .microphone:
      try Microphone(device: nil, settings: configuration.pulseAudio, stopSignal: stopSignal)
    case let .device(name):
      try Microphone(device: name, settings: configuration.pulseAudio, stopSignal: stopSignal)
    case let .file(url):
      try AudioFile(url: url, stopSignal: stopSignal)
    case let .rawFile(url):
      try RawAudioFile(url: url, stopSignal: stopSignal)
    case .standardInput(raw: false):
      try AudioFile(standardInput: stopSignal)
    case .standardInput(raw: true):
      try RawAudioFile(standardInput: stopSignal)
    case let .pushed(audio):
      try PushedSamples(audio, stopSignal: stopSignal)
    }
  }
}
