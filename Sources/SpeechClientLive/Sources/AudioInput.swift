import Foundation
import SpeechClient

/// A source of 16 kHz mono signed 16-bit samples, read on a task's own thread.
///
/// Reads may block (a microphone waits for audio) but never for longer than the source's own
/// timeouts, and they return `nil` once the source ends or its task was asked to stop.
protocol AudioInput: AnyObject {
  /// Reads the next chunk of samples; `nil` at the end of the input.
  ///
  /// - Throws: a ``SpeechClient/Failure`` when the source fails. Samples read before are valid.
  func read() throws(SpeechClient.Failure) -> [Int16]?

  /// How much of the input has been read, 0…1, or `nil` for a source without an end.
  var progress: Double? { get }

  /// The length of the whole input in seconds, or `nil` for a source without an end.
  var totalDuration: TimeInterval? { get }

  /// Whether reads after a stop still deliver what was captured before it (a microphone),
  /// rather than the task ending at once (a file: the rest is simply not decoded).
  var drainsWhenStopped: Bool { get }
}

extension AudioInput {
  var drainsWhenStopped: Bool { false }
  var totalDuration: TimeInterval? { nil }
}

extension SpeechRecognitionRequest.AudioSource {
  /// Opens the source.
  func open(
    configuration: LiveSpeechConfiguration, stopSignal: StopSignal
  ) throws(SpeechClient.Failure) -> any AudioInput {
    switch self {
    case .microphone:
      try Microphone(device: nil, configuration: configuration, stopSignal: stopSignal)
    case let .device(name):
      try Microphone(device: name, configuration: configuration, stopSignal: stopSignal)
    case let .file(url):
      try AudioFile(url: url)
    case let .rawFile(url):
      try RawAudioFile(url: url)
    }
  }
}
