import Foundation
import Testing

/// The tests that run the built binary, one at a time: each starts processes that decode audio in
/// real time, and on a small machine several at once would starve each other's timing.
@Suite(.serialized) enum CommandTests {}

/// Runs the built `transcribe` binary, as a user would, and collects what it prints.
struct TranscribeProcess {
  struct Output {
    var status: Int32
    var stdout: String
    var stderr: String
    var reason: Process.TerminationReason
  }

  /// The `transcribe` executable next to the test bundle in `.build/<configuration>/`.
  static var executable: URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
    return directory.appendingPathComponent("transcribe")
  }

  let process = Process()
  private let stdoutPipe = Pipe()
  private let stderrPipe = Pipe()
  private let stdoutData = LockedData()
  /// Whether standard output goes to `stdoutPipe` (otherwise nothing ever closes the pipe).
  private let collectsStdout: Bool
  private let stderrData = LockedData()

  /// A process for `transcribe arguments`; `standardOutput` replaces the pipe that collects
  /// standard output (e.g. `/dev/full`). With a `shellScript`, `/bin/sh` runs the script with
  /// the binary's path as `$0` and `arguments` as `$1`…, for pipes and redirections.
  init(
    _ arguments: [String], environment: [String: String] = [:],
    standardOutput: FileHandle? = nil, shellScript: String? = nil
  ) {
    collectsStdout = standardOutput == nil
    if let shellScript {
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", shellScript, Self.executable.path] + arguments
    } else {
      process.executableURL = Self.executable
      process.arguments = arguments
    }
    var env = ProcessInfo.processInfo.environment
    env["DEPENDENCIES_CONTEXT"] = "live"
    // These tests were written for pocketsphinx's words; the engine tests choose Moonshine with
    // --engine or by setting TRANSCRIBE_ENGINE themselves.
    env["TRANSCRIBE_ENGINE"] = "pocketsphinx"
    env.merge(environment) { _, new in new }
    process.environment = env
    process.standardOutput = standardOutput ?? stdoutPipe
    process.standardError = stderrPipe
    process.standardInput = FileHandle.nullDevice
    let stdoutData = stdoutData
    let stderrData = stderrData
    stdoutPipe.fileHandleForReading.readabilityHandler = { stdoutData.append($0.availableData) }
    stderrPipe.fileHandleForReading.readabilityHandler = { stderrData.append($0.availableData) }
  }

  func start() throws {
    try process.run()
  }

  /// What has been written to standard output so far.
  var stdoutSoFar: String { stdoutData.string }

  /// What has been written to standard error so far.
  var stderrSoFar: String { stderrData.string }

  /// Waits until standard output satisfies `condition`, or `timeout` seconds pass; returns
  /// whether it did.
  func waitForOutput(
    timeout: TimeInterval = 60, _ condition: (String) -> Bool
  ) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if condition(stdoutSoFar) { return true }
      if !process.isRunning { return condition(stdoutSoFar) }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return false
  }

  /// Waits for the process to exit, killing it after `timeout` seconds.
  func wait(timeout: TimeInterval = 60) async -> Output {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    if process.isRunning {
      process.terminate()
      try? await Task.sleep(for: .milliseconds(500))
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    process.waitUntilExit()
    // Drain what is left in the pipes.
    stdoutPipe.fileHandleForReading.readabilityHandler = nil
    stderrPipe.fileHandleForReading.readabilityHandler = nil
    if collectsStdout {
      stdoutData.append(stdoutPipe.fileHandleForReading.readDataToEndOfFile())
    }
    stderrData.append(stderrPipe.fileHandleForReading.readDataToEndOfFile())
    return Output(
      status: process.terminationStatus, stdout: stdoutData.string, stderr: stderrData.string,
      reason: process.terminationReason)
  }

  /// Runs to the end.
  static func run(
    _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60,
    standardOutput: FileHandle? = nil, shellScript: String? = nil
  )
    async throws -> Output
  {
    let process = TranscribeProcess(
      arguments, environment: environment, standardOutput: standardOutput,
      shellScript: shellScript)
    try process.start()
    return await process.wait(timeout: timeout)
  }
}

final class LockedData: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()

  func append(_ more: Data) {
    lock.lock()
    data.append(more)
    lock.unlock()
  }

  var string: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: data, as: UTF8.self)
  }
}
