import Foundation
import Testing

/// A private PulseAudio server with a virtual microphone, run by `../shared/virtual-mic.sh`.
///
/// The script is found relative to this package's root (so it works from a fresh clone in CI),
/// or at `$VIRTUAL_MIC_SCRIPT`. Each instance has its own state directory and socket, so tests
/// that kill or stop a server never disturb the others, nor a server a developer runs by hand.
struct VirtualMicrophone: Sendable {
  /// The state directory (`VMIC_DIR`); the socket is `native` in it.
  let directory: String

  /// The server address to pass as `LiveSpeechConfiguration.server`.
  var server: String { "unix:\(directory)/native" }

  static let script: URL = {
    if let path = ProcessInfo.processInfo.environment["VIRTUAL_MIC_SCRIPT"] {
      return URL(fileURLWithPath: path)
    }
    // Tests/SpeechClientLiveTests/VirtualMicrophone.swift → the package root → ../shared.
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
      .appendingPathComponent("shared/virtual-mic.sh")
  }()

  /// Starts (or reuses) the server named `name`.
  static func start(_ name: String) throws -> VirtualMicrophone {
    let microphone = VirtualMicrophone(directory: "/tmp/vmic-\(getpid())-\(name)")
    try microphone.script("start")
    return microphone
  }

  /// The one shared server of this test process, started on first use; `nil` when PulseAudio
  /// cannot be started here (the tests that need it are then skipped).
  static let shared: VirtualMicrophone? = {
    do {
      return try start("shared")
    } catch {
      print("virtual microphone unavailable, skipping its tests: \(error)")
      return nil
    }
  }()

  /// Plays a file into the microphone; returns once it has all been heard.
  func play(_ file: URL) throws {
    try script("play", file.path)
  }

  /// Stops the server.
  func stop() {
    try? script("stop")
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The server's process id.
  var pid: pid_t? {
    (try? String(contentsOfFile: "\(directory)/pulseaudio.pid", encoding: .utf8))
      .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }

  private func script(_ arguments: String...) throws {
    try run(
      "/bin/bash", [Self.script.path] + arguments,
      environment: ["VMIC_DIR": directory])
  }
}

/// Stops the shared virtual microphone when the suite that used it ends.
struct StopsSharedVirtualMicrophone: SuiteTrait, TestScoping {
  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    defer { VirtualMicrophone.shared?.stop() }
    try await function()
  }
}
