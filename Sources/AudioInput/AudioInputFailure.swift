/// Why audio could not be captured or read. The live speech client turns these into its
/// interface's failures; this module does not know that interface.
public enum AudioInputFailure: Error, Equatable, Sendable {
  /// No audio server answered (not running, or not reachable at the configured address).
  case audioServerUnreachable(String)
  /// The capture source does not exist, or access to it was refused.
  case captureSourceMissing(String)
  /// The audio device stopped delivering audio (the server died or hung).
  case audioDeviceFailed(String)
  /// An audio file could not be opened or read.
  case fileUnreadable(path: String, reason: String)
  /// The named capture source does not exist; `available` lists the server's sources.
  case captureSourceNotFound(name: String, available: [String])
  /// Audio could not be converted to 16 kHz (the rate converter failed).
  case conversionFailed(String)
}
