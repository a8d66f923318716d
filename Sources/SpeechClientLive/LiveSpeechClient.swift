import AudioInput
import ConcurrencyExtras
import Dependencies
import Foundation
import SpeechClient

extension SpeechClient: DependencyKey {
  /// The live client with the default ``LiveSpeechConfiguration``: the default PulseAudio
  /// server and source, Debian's `pocketsphinx-en-us` model, pocketsphinx's log silenced.
  public static let liveValue = SpeechClient.live()

  /// A live client: PulseAudio capture, audio files, standard input or pushed audio, decoded by
  /// the engine each request names (or the configuration's ``LiveSpeechConfiguration/defaultEngine``).
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
    live(configuration, file: nil)
  }

  /// A live client whose first task delivers `file`'s results (a file of a
  /// ``FileRecognitionBatch``, decoded ahead).
  static func live(
    _ configuration: LiveSpeechConfiguration, file: FileRecognition?
  ) -> SpeechClient {
    let current = LockIsolated<(any RunningRecognition)?>(nil)
    let unclaimedFile = LockIsolated(file)
    return SpeechClient(
      requestAuthorization: {
        await checkAuthorization(for: configuration.authorizationRequest, configuration)
      },
      startTask: { request in
        let file = unclaimedFile.withValue { file in
          defer { file = nil }
          return file
        }
        let (task, stream) = start(request, configuration, file: file)
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

  /// Starts a task: files on the decoder pool (`file` when it was decoded ahead), capture
  /// sources and streams on a streaming recognizer of their own.
  private static func start(
    _ request: SpeechRecognitionRequest, _ configuration: LiveSpeechConfiguration,
    file: FileRecognition?
  ) -> (any RunningRecognition, AsyncThrowingStream<SpeechRecognitionResult, any Error>) {
    if let file, file.request.source == request.source {
      return (file, file.stream)
    }
    guard request.source.isFileSource else {
      return RecognitionTask.start(request, configuration: configuration)
    }
    let batch = FileRecognitionBatch([request], configuration: configuration)
    return start(request, configuration, file: batch.file(at: 0))
  }
}

/// A task the client can stop and wait for.
protocol RunningRecognition: Sendable {
  /// Asks the task to stop and deliver its last words; returns at once.
  func stop()
  /// Waits until the task has delivered its last result.
  func waitUntilFinished() async
}

extension RecognitionTask: RunningRecognition {}
extension FileRecognition: RunningRecognition {}
