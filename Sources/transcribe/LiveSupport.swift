import AudioInput
import Foundation
import SpeechClient
import SpeechClientLive
import Synchronization

/// What the command needs from the live module beyond the `SpeechClient` interface: configuring
/// the live client, the precise reason recognition is not authorized, and the device list.
enum LiveSupport {
  /// The live client for one request: `--verbose`, and progress on standard error for files.
  static func client(for request: SpeechRecognitionRequest, verbose: Bool) -> SpeechClient {
    var configuration = LiveSpeechConfiguration(
      isVerbose: verbose, authorizationRequest: request)
    if request.source.isFile, showsProgress {
      configuration.progress = ProgressLine().update
    }
    configuration.warning = { warning in
      Terminal.writeError("transcribe: warning: \(warning.message)\n")
    }
    var client = SpeechClient.live(configuration)
    let checked = configuration
    // Remember the check's reason, so reporting it needs no second probe (which would double
    // the wait for a hung server).
    client.requestAuthorization = {
      let check = await SpeechClient.checkAuthorization(for: request, checked)
      lastCheck.withLock { $0 = (request, check) }
      return check.status
    }
    return client
  }

  /// The last authorization check of a client made by ``client(for:verbose:)``.
  private static let lastCheck = Mutex<(SpeechRecognitionRequest, AuthorizationCheck)?>(nil)

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
    if let (checked, check) = lastCheck.withLock({ $0 }), checked == request {
      return check.reason
    }
    return await SpeechClient.checkAuthorization(for: request).reason
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
