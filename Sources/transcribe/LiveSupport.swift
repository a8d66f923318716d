import AudioInput
import Foundation
import SpeechClient
import SpeechClientLive

/// What the command needs from the live module beyond the `SpeechClient` interface: configuring
/// the live client, the precise reason recognition is not authorized, and the device list.
enum LiveSupport {
  /// `--jobs`, `--silence` and `--max-utterance`, and the command's files, decoding ahead.
  @MainActor private static var decoding = LiveSpeechConfiguration()

  /// Sets the decoding options for every client of this run (`alternatives`: whether words'
  /// alternatives are wanted), and starts decoding `files` (in
  /// parallel, on the decoder pool) so each file's session finds its results ready or coming.
  @MainActor static func configureDecoding(
    jobs: Int?, silence: Double?, maxUtterance: Double?, alternatives: Bool, verbose: Bool,
    files: [SpeechRecognitionRequest]
  ) {
    var configuration = LiveSpeechConfiguration(isVerbose: verbose)
    // Only JSON output shows each word's alternatives; the n-best search is skipped otherwise.
    if !alternatives { configuration.alternativeCount = 0 }
    if let jobs { configuration.jobs = jobs }
    if let silence { configuration.endOfUtteranceSilence = silence }
    if let maxUtterance { configuration.maximumUtteranceDuration = maxUtterance }
    if !files.isEmpty {
      configuration.fileBatch = FileRecognitionBatch(files, configuration: configuration)
    }
    decoding = configuration
  }

  /// The live client for one request: `--verbose`, and progress on standard error for files.
  @MainActor static func client(
    for request: SpeechRecognitionRequest, verbose: Bool
  ) -> SpeechClient {
    var configuration = decoding
    configuration.isVerbose = verbose
    configuration.authorizationRequest = request
    if request.source.isFile, showsProgress {
      configuration.progress = ProgressLine().update
    }
    return .live(configuration)
  }

  /// Progress goes to standard error when it is a terminal. When the transcript goes to the same
  /// terminal, the progress line takes the row the live words would use, and the renderer writes
  /// only finished utterances, erasing the progress line before each.
  static var showsProgress: Bool {
    Terminal.stderrIsTerminal
  }

  /// Why `request` cannot run, if the live client can tell.
  static func reasonNotAuthorized(
    for request: SpeechRecognitionRequest
  ) async
    -> SpeechClient.Failure?
  {
    await SpeechClient.checkAuthorization(for: request).reason
  }

  /// Prints the capture sources for `--list-devices`: name, then description; `*` marks the
  /// default. Monitors of outputs are listed last, marked as such.
  static func printDevices() async throws {
    let devices: [AudioDevice]
    do {
      devices = try await AudioDevice.captureSources()
    } catch {
      Terminal.writeError("transcribe: error: \(error.message)\n")
      throw error.exitStatus.exitCode
    }
    let sorted = devices.filter { !$0.isMonitor } + devices.filter(\.isMonitor)
    let width = sorted.map(\.name.count).max() ?? 0
    for device in sorted {
      let marker = device.isDefault ? "*" : " "
      let padding = String(repeating: " ", count: width - device.name.count)
      let monitor = device.isMonitor ? " (monitor of an output)" : ""
      Terminal.write("\(marker) \(device.name)\(padding)  \(device.description)\(monitor)\n")
    }
    if sorted.isEmpty {
      Terminal.writeError("transcribe: the PulseAudio server has no capture sources\n")
    }
  }
}

/// A progress line on standard error, updated at most every percent.
private final class ProgressLine: Sendable {
  private let started = Date()

  func update(_ fraction: Double) {
    // Short files finish before progress is worth showing.
    guard Date().timeIntervalSince(started) > 1 || fraction >= 1 else { return }
    let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
    Terminal.writeError(
      "\r\u{1B}[2Ktranscribing… \(percent)%" + (fraction >= 1 ? "\r\u{1B}[2K" : ""))
  }
}
