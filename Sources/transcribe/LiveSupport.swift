import SpeechClientLive

/// What the command needs from the live module beyond the `SpeechClient` interface.
enum LiveSupport {
  /// Applies `--verbose` to the live client.
  static func configure(verbose: Bool) {}

  /// Prints the capture sources for `--list-devices`.
  static func printDevices() async throws {
    Terminal.writeError("transcribe: --list-devices is not available yet\n")
  }
}
