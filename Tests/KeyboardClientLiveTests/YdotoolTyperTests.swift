import Foundation
import KeyboardClient
import LiveTestSupport
import Testing

@testable import KeyboardClientLive

/// ydotool needs `/dev/uinput` (directly, or through ydotoold): not there in a container, so
/// what is tested for real is how it refuses.
@Suite(.enabled(if: TypingTarget.isRequired || TypingTarget.installed("ydotool"), "needs ydotool"))
struct YdotoolTyperTests {
  static let canReachUinput =
    YdotoolTyper.uinputWritable()
    || YdotoolTyper.daemonAnswers(environment: ProcessInfo.processInfo.environment)

  @Test(.disabled(if: canReachUinput, "this machine has /dev/uinput or ydotoold"))
  func refusesWithoutDaemonOrUinput() {
    #expect(
      throws: KeyboardClientFailure.refused(tool: "ydotool", reason: YdotoolTyper.unreachable)
    ) {
      try KeyboardClient.live(.ydotool)
    }
  }

  /// The real ydotool 0.1.8, past the check: it aborts with "failed to open uinput device".
  @Test(.disabled(if: canReachUinput, "this machine has /dev/uinput or ydotoold"))
  func theToolsOwnRefusalIsRefused() async throws {
    let runner = ToolRunner(environment: ProcessInfo.processInfo.environment)
    let ydotool = try #require(runner.executable("ydotool"))
    let typer = YdotoolTyper(runner: runner, ydotool: ydotool)
    await #expect(
      throws: KeyboardClientFailure.refused(tool: "ydotool", reason: YdotoolTyper.unreachable)
    ) {
      try await typer.type("hello")
    }
    await #expect(
      throws: KeyboardClientFailure.refused(tool: "ydotool", reason: YdotoolTyper.unreachable)
    ) {
      try await typer.erase(2)
    }
  }

  @Test func refusesTextOutsideASCIIBeforeTypingAnything() async throws {
    let runner = ToolRunner(environment: ProcessInfo.processInfo.environment)
    let ydotool = try #require(runner.executable("ydotool"))
    let typer = YdotoolTyper(runner: runner, ydotool: ydotool)
    await #expect(throws: KeyboardClientFailure.cannotType(tool: "ydotool", characters: "éü’")) {
      try await typer.type("café über’s, café")
    }
  }

  /// A stand-in for ydotool 0.1.8 that records its arguments and what the `--file` it is given
  /// holds, and exits as 0.1.8 does (with its argument count).
  static func recordingYdotool(in directory: URL) throws -> URL {
    let tool = directory.appendingPathComponent("ydotool")
    let script = """
      #!/bin/sh
      printf '%s\\n' "$@" >> "\(directory.path)/arguments"
      while [ $# -gt 0 ]; do
        if [ "$1" = --file ]; then cat "$2" >> "\(directory.path)/typed"; fi
        shift
      done
      exit 7
      """
    try script.write(to: tool, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    return tool
  }

  @Test func theTextGoesOnStandardInputNeverInArgumentsOrOnDisk() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ydotool-stdin-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let temporary = FileManager.default.temporaryDirectory.path
    func leftovers() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: temporary)
        .filter { $0.hasPrefix("transcribe-ydotool-") }
    }
    let before = try leftovers()
    let runner = ToolRunner(environment: ["PATH": "/usr/bin:/bin"])
    let typer = YdotoolTyper(runner: runner, ydotool: try Self.recordingYdotool(in: directory))
    try await typer.type("-n secret words\nsecond line")
    let arguments = try String(
      contentsOf: directory.appendingPathComponent("arguments"), encoding: .utf8)
    let typed = try String(contentsOf: directory.appendingPathComponent("typed"), encoding: .utf8)
    #expect(typed == "-n secret wordssecond line")
    #expect(!arguments.contains("secret") && !arguments.contains("second"))
    #expect(arguments.contains("/dev/stdin") && arguments.contains("Enter"))
    #expect(try leftovers() == before)
  }
}
