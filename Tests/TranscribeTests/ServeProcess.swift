import Foundation
import LiveTestSupport
import Testing

/// `transcribe serve` running as a process, as an operator starts it: on `--port 0` it learns the
/// port from the line the server prints once listening.
final class ServeProcess {
  let process: TranscribeProcess
  /// The port the server listens on.
  let port: Int

  /// Starts `transcribe serve arguments --port 0` and waits until it listens.
  init(
    _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
  ) async throws {
    let process = TranscribeProcess(
      ["serve", "--port", "0"] + arguments, environment: environment)
    try process.start()
    self.process = process
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline, process.process.isRunning {
      if let port = Self.port(in: process.stderrSoFar) {
        self.port = port
        return
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    let output = await process.wait(timeout: 1)
    throw ServeProcessError.didNotListen(stderr: output.stderr)
  }

  /// The port in `transcribe: listening on http://HOST:PORT`.
  static func port(in stderr: String) -> Int? {
    guard let range = stderr.range(of: "transcribe: listening on http://") else { return nil }
    let rest = stderr[range.upperBound...]
    guard let line = rest.split(separator: "\n", omittingEmptySubsequences: false).first,
      rest.contains("\n"), let colon = line.lastIndex(of: ":")
    else { return nil }
    return Int(line[line.index(after: colon)...])
  }

  /// The WebSocket address.
  var webSocketURL: String { "ws://127.0.0.1:\(port)" }

  /// The HTTP address, without a trailing slash.
  var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Ends the server at once, if it still runs (for `defer`).
  func kill() {
    if process.process.isRunning { process.process.terminate() }
  }

  /// Stops the server with SIGTERM and returns what it wrote to standard error.
  func stop() async -> String {
    await terminate(timeout: 20).stderr
  }

  /// Sends `signal` (SIGTERM unless told) and waits for the process to exit.
  func terminate(
    signal: Int32 = SIGTERM, timeout: TimeInterval = 30
  ) async -> TranscribeProcess.Output {
    Glibc.kill(process.process.processIdentifier, signal)
    return await process.wait(timeout: timeout)
  }
}

enum ServeProcessError: Error {
  case didNotListen(stderr: String)
}

/// Python clients the server tests drive: present, or (outside CI) a reason to skip.
///
/// ```swift
/// @Test(.enabled(if: PythonClient.canImport("websockets"), "needs python3 with websockets"))
/// ```
enum PythonClient {
  /// The repository's `scripts/` directory.
  static let scripts = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scripts")

  /// Whether a test that needs `module` runs: `python3` can import it, or `CI` is set (where
  /// scripts/install-dependencies.sh installed it, and its absence fails the test instead of
  /// skipping it).
  static func canImport(_ module: String) -> Bool {
    VirtualMicrophone.isRequired || hasModule(module)
  }

  /// Whether `python3` can import `module`.
  static func hasModule(_ module: String) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import \(module)"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    return (try? process.run()).map { process.waitUntilExit() } != nil
      && process.terminationStatus == 0
  }

  /// Runs `scripts/NAME arguments` with python3; returns its status, stdout and stderr.
  static func run(
    _ name: String, _ arguments: [String], timeout: TimeInterval = 120
  ) async throws -> (status: Int32, stdout: String, stderr: String) {
    let process = try PythonProcess(name, arguments)
    return await process.wait(timeout: timeout)
  }
}

/// A Python script from `scripts/` running, whose output can be watched while it runs.
final class PythonProcess {
  private let process = Process()
  private let stdout = Pipe()
  private let stderr = Pipe()
  private let out = LockedData()
  private let err = LockedData()

  /// Starts `python3 scripts/NAME arguments`.
  init(_ name: String, _ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      ["python3", PythonClient.scripts.appendingPathComponent(name).path] + arguments
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = FileHandle.nullDevice
    let out = self.out
    let err = self.err
    stdout.fileHandleForReading.readabilityHandler = { out.append($0.availableData) }
    stderr.fileHandleForReading.readabilityHandler = { err.append($0.availableData) }
    try process.run()
  }

  /// What the script has written to stdout so far.
  var stdoutSoFar: String { out.string }

  /// Waits until stdout has `lines` lines, or `timeout` seconds pass; returns whether it did.
  func waitForLines(_ lines: Int, timeout: TimeInterval = 60) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if stdoutSoFar.split(separator: "\n").count >= lines { return true }
      if !process.isRunning { break }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return stdoutSoFar.split(separator: "\n").count >= lines
  }

  /// Waits for the script to end (killing it after `timeout` seconds).
  func wait(timeout: TimeInterval = 120) async -> (status: Int32, stdout: String, stderr: String) {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    stdout.fileHandleForReading.readabilityHandler = nil
    stderr.fileHandleForReading.readabilityHandler = nil
    out.append(stdout.fileHandleForReading.readDataToEndOfFile())
    err.append(stderr.fileHandleForReading.readDataToEndOfFile())
    return (process.terminationStatus, out.string, err.string)
  }
}
