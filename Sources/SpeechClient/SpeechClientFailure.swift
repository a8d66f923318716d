extension SpeechClient {
  /// The ways recognition can fail.
  public enum Failure: Error, Equatable, Sendable {
    /// No audio server answered (not running, or not reachable at the configured address).
    case audioServerUnreachable(String)
    /// The capture source does not exist.
    case captureSourceMissing(String)
    /// The audio device stopped delivering audio (server died or hung).
    case audioDeviceFailed(String)
    /// The model files are missing.
    case modelMissing(String)
    /// The model files could not be loaded.
    case modelCorrupt(String)
    /// An audio file could not be opened or read.
    case fileUnreadable(path: String, reason: String)
    /// The decoder failed.
    case decoderFailure(String)

    /// Whether the failure is about the audio device rather than the model or a file.
    public var isAudioDeviceProblem: Bool {
      switch self {
      case .audioServerUnreachable, .captureSourceMissing, .audioDeviceFailed: true
      default: false
      }
    }
  }
}

extension SpeechClient.Failure {
  /// Wraps any error as a failure; errors that are not a ``SpeechClient/Failure`` become
  /// ``decoderFailure(_:)`` with their description.
  public init(_ error: any Error) {
    if let failure = error as? SpeechClient.Failure {
      self = failure
    } else {
      self = .decoderFailure(String(describing: error))
    }
  }
}
