/// A capture source recognition can listen to, as `transcribe --list-devices` shows it.
public struct CaptureDevice: Equatable, Sendable, Identifiable, Codable {
  /// The audio server's name for the source; pass it as
  /// ``SpeechRecognitionRequest/AudioSource/device(_:)``.
  public var name: String
  /// A human-readable description, e.g. "Built-in Audio Analog Stereo".
  public var description: String
  /// Whether the source records what an output plays (a "monitor") rather than a microphone.
  public var isMonitor: Bool
  /// Whether it is the server's default source, used by
  /// ``SpeechRecognitionRequest/AudioSource/microphone``.
  public var isDefault: Bool

  /// The source's name.
  public var id: String { name }

  /// Creates a device description.
  public init(name: String, description: String, isMonitor: Bool = false, isDefault: Bool = false) {
    self.name = name
    self.description = description
    self.isMonitor = isMonitor
    self.isDefault = isDefault
  }
}
