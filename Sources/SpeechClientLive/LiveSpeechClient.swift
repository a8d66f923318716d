import AudioInput
import ConcurrencyExtras
import Dependencies
import Foundation
import SpeechClient

extension SpeechClient: DependencyKey {
  /// The live client with the default ``LiveSpeechConfiguration``: the default PulseAudio
  /// server and source, Debian's `pocketsphinx-en-us` model, pocketsphinx's log silenced.
  public static let liveValue = SpeechClient.live()

  /// A live client: PulseAudio capture or audio files, decoded by pocketsphinx.
  ///
  /// Each client runs one task at a time: `startTask` stops a task still running (it finishes
  /// its stream with its last words), and `finishTask` stops the current task and returns once
  /// its last result has been delivered. Separate clients are independent and can decode at
  /// the same time.
  ///
  /// ```swift
  /// let client = SpeechClient.live(LiveSpeechConfiguration(isVerbose: true))
  /// let request = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "talk.wav")))
  /// for try await result in await client.startTask(request) {
  ///   if let fraction = result.progress?.fractionCompleted { print("\(Int(fraction * 100))%") }
  ///   if result.isFinal { print(result.bestTranscription.formattedString) }
  /// }
  /// ```
  public static func live(_ configuration: LiveSpeechConfiguration = .init()) -> SpeechClient {
    let current = LockIsolated<RecognitionTask?>(nil)
    return SpeechClient(
      requestAuthorization: {
        let check = await checkAuthorization(
          for: configuration.authorizationRequest, configuration)
        return SpeechClient.Authorization(status: check.status, reason: check.reason)
      },
      startTask: { request in
        let (task, stream) = RecognitionTask.start(request, configuration: configuration)
        let previous = current.withValue { current in
          defer { current = task }
          return current
        }
        previous?.stop()
        return stream
      },
      finishTask: {
        let task = current.withValue { current in
          defer { current = nil }
          return current
        }
        task?.stop()
        await task?.waitUntilFinished()
      },
      captureDevices: {
        try await AudioDevice.captureSources(configuration).map {
          CaptureDevice(
            name: $0.name, description: $0.description, isMonitor: $0.isMonitor,
            isDefault: $0.isDefault)
        }
      }
    )
  }
}
