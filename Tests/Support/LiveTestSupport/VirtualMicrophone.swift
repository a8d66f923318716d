import Foundation

/// A private PulseAudio server with a virtual microphone, run by the repository's
/// `scripts/virtual-mic.sh`.
///
/// The script is found relative to this package's root (so it works from a fresh clone in CI),
/// or at `$VIRTUAL_MIC_SCRIPT`. Each instance has its own state directory and socket, so tests
/// that kill or stop a server never disturb the others, nor a server a developer runs by hand.
public struct VirtualMicrophone: Sendable {
  /// The state directory (`VMIC_DIR`); the socket is `native` in it.
  public let directory: String

  /// The server address, for `PULSE_SERVER` or `LiveSpeechConfiguration.server`.
  public var server: String { "unix:\(directory)/native" }

  /// The environment a PulseAudio client needs to use this server.
  public var environment: [String: String] {
    ["PULSE_SERVER": server, "PULSE_COOKIE": "\(directory)/cookie"]
  }

  /// The script that runs the server: `$VIRTUAL_MIC_SCRIPT`, or the package's own copy.
  public static let script: URL = {
    if let path = ProcessInfo.processInfo.environment["VIRTUAL_MIC_SCRIPT"] {
      return URL(fileURLWithPath: path)
    }
    // Tests/Support/LiveTestSupport/VirtualMicrophone.swift → the package root.
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("scripts/virtual-mic.sh")
  }()

  /// Starts (or reuses) the server named `name`.
  public static func start(_ name: String) throws -> VirtualMicrophone {
    let microphone = VirtualMicrophone(directory: "/tmp/vmic-\(getpid())-\(name)")
    try microphone.script("start")
    return microphone
  }

  /// Whether a test that needs the virtual microphone runs: `pulseaudio` is installed, or
  /// `CI` is set (where a server that cannot start fails the test instead of skipping it).
  ///
  /// ```swift
  /// @Test(.enabled(if: VirtualMicrophone.canStart, "needs PulseAudio"))
  /// ```
  public static var canStart: Bool {
    isRequired || isPulseAudioInstalled
  }

  /// Whether a `pulseaudio` executable is on `PATH`.
  static var isPulseAudioInstalled: Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/pulseaudio")
    }
  }

  /// Whether the virtual-microphone tests must run: on CI a server that cannot start is a
  /// failure, not a reason to skip.
  public static var isRequired: Bool {
    ProcessInfo.processInfo.environment["CI"] != nil
  }

  /// Plays a file into the microphone; returns once it has all been heard.
  public func play(_ file: URL) throws {
    try script("play", file.path)
  }

  /// Waits until a client records from the server (a source output that belongs to a client,
  /// not to the server's own remapping module): the moment a process started with
  /// ``environment`` is listening, so audio played from then on is heard. Returns `false` after
  /// `timeout` without one.
  public func waitForRecording(timeout: Duration = .seconds(30)) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
      let outputs = try runCommand(
        "/usr/bin/env", ["pactl", "list", "short", "source-outputs"], environment: environment)
      let recording = outputs.split(separator: "\n").contains { line in
        let columns = line.split(separator: "\t")
        return columns.count > 2 && columns[2] != "-"
      }
      if recording { return true }
      try await Task.sleep(for: .milliseconds(50))
    }
    return false
  }

  /// Stops the server.
  public func stop() {
    try? script("stop")
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The server's process id.
  public var pid: pid_t? {
    (try? String(contentsOfFile: "\(directory)/pulseaudio.pid", encoding: .utf8))
      .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }

  private func script(_ arguments: String...) throws {
    try runCommand(
      "/bin/bash", [Self.script.path] + arguments,
      environment: ["VMIC_DIR": directory])
  }
}

/// pocketsphinx-testdata's files.
public enum SpeechTestData {
  public static let directory = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data")
  public static let goForward = directory.appendingPathComponent("goforward.raw")
  public static let isInstalled = FileManager.default.fileExists(atPath: goForward.path)

  /// goforward.raw as a 16 kHz WAV (with `effects`, e.g. `pad 0 3`), made with sox.
  public static func goForwardWAV(in directory: URL, effects: [String] = []) throws -> URL {
    let url = directory.appendingPathComponent("goforward-\(effects.joined(separator: "_")).wav")
    try runSox(
      ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", goForward.path, url.path]
        + effects)
    return url
  }
}

/// Runs a command and returns its standard output; throws if it fails.
@discardableResult
public func runCommand(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil
) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let environment {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw CommandFailure(
      command: ([executable] + arguments).joined(separator: " "),
      status: process.terminationStatus,
      stderr: String(decoding: errorData, as: UTF8.self))
  }
  return String(decoding: data, as: UTF8.self)
}

/// A command that exited with a non-zero status.
public struct CommandFailure: Error, CustomStringConvertible {
  public var command: String
  public var status: Int32
  public var stderr: String
  public var description: String { "\(command) exited \(status): \(stderr)" }
}

/// A temporary directory removed when the value is released.
public final class TemporaryDirectory: Sendable {
  public let url: URL

  public init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("transcribe-tests-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }
}
