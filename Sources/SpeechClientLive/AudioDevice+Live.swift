import AudioInput
import SpeechClient

extension AudioDevice {
  /// The capture sources of the configured PulseAudio server, in the server's order, asked on a
  /// thread of its own.
  ///
  /// ```swift
  /// for device in try await AudioDevice.captureSources() {
  ///   print(device.isDefault ? "*" : " ", device.name, "-", device.description)
  /// }
  /// ```
  ///
  /// - Throws: `SpeechClient.Failure.audioServerUnreachable` when the server does not answer
  ///   within ``LiveSpeechConfiguration/connectTimeout``.
  public static func captureSources(
    _ configuration: LiveSpeechConfiguration = .init()
  ) async throws(SpeechClient.Failure) -> [AudioDevice] {
    let settings = configuration.pulseAudio
    let result = await DedicatedThread.run(name: "transcribe.devices") {
      Result { () throws(AudioInputFailure) in try captureSources(settings) }
    }
    return try result.mapError(SpeechClient.Failure.init).get()
  }
}
