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

  /// Sends SIGTERM and waits for the process to exit.
  func terminate(timeout: TimeInterval = 30) async -> TranscribeProcess.Output {
    kill(process.process.processIdentifier, SIGTERM)
    return await process.wait(timeout: timeout)
  }
}

enum ServeProcessError: Error {
  case didNotListen(stderr: String)
}

/// Python clients the server tests drive: present, or (outside CI) a reason to skip.
enum PythonClient {
  /// The repository's `scripts/` directory.
  static let scripts = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scripts")

  /// Whether `python3` can import `module`; with `CI` set a missing module fails the test
  /// instead (scripts/install-dependencies.sh installs it).
  static func hasModule(_ module: String) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import \(module)"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let found =
      (try? process.run()).map { process.waitUntilExit() } != nil
      && process.terminationStatus == 0
    if !found {
      if VirtualMicrophone.isRequired {
        Issue.record(
          "python3 cannot import \(module): run scripts/install-dependencies.sh")
      } else {
        print("python3 cannot import \(module); skipping (scripts/install-dependencies.sh)")
      }
    }
    return found
  }

  /// Runs `scripts/NAME arguments` with python3; returns its status, stdout and stderr.
  static func run(
    _ name: String, _ arguments: [String], timeout: TimeInterval = 120
  ) async throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", scripts.appendingPathComponent(name).path] + arguments
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = FileHandle.nullDevice
    let out = LockedData()
    let err = LockedData()
    stdout.fileHandleForReading.readabilityHandler = { out.append($0.availableData) }
    stderr.fileHandleForReading.readabilityHandler = { err.append($0.availableData) }
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
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
