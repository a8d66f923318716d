import Foundation
import KeyboardClient
import LiveTestSupport
import Testing

@testable import KeyboardClientLive

@Suite struct ToolRunnerTests {
  /// A tool is looked up in the absolute directories of `PATH` only: an `xdotool` in a directory
  /// that a relative entry names (`.`, `bin`: wherever dictation was started) is never run.
  @Test func relativePathEntriesAreNotSearched() throws {
    let directory = try TemporaryDirectory()
    let bin = directory.url.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    let tool = bin.appendingPathComponent("xdotool")
    try Data("#!/bin/sh\n".utf8).write(to: tool)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)

    // The directory as a relative path from this process's working directory (which the test
    // leaves alone: other tests share it), so that a lookup that followed it would find the tool.
    let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
    let relative = String(repeating: "../", count: depth) + bin.path.dropFirst()
    #expect(FileManager.default.isExecutableFile(atPath: relative + "/xdotool"))
    for path in [relative, "./" + relative, "\(relative):/nonexistent"] {
      let runner = ToolRunner(environment: ["PATH": path])
      #expect(runner.executable("xdotool") == nil, "PATH=\(path)")
    }
    let runner = ToolRunner(environment: ["PATH": "/nonexistent:\(bin.path)"])
    #expect(runner.executable("xdotool")?.path == tool.path)
  }

  /// A tool that exits without reading what it was given on standard input (ydotool refusing
  /// for want of `/dev/uinput`, a typer that dies) is an exit like any other: more input than a
  /// pipe holds makes the write meet the closed pipe every time, which raised SIGPIPE and ended
  /// the whole process (the test process here, since only the command ignores the signal).
  @Test func aToolThatReadsNoneOfItsInputEndsWithoutTakingThisProcessDown() async throws {
    let directory = try TemporaryDirectory()
    let tool = directory.url.appendingPathComponent("refuser")
    try Data("#!/bin/sh\necho 'no input wanted' >&2\nexit 3\n".utf8).write(to: tool)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    let runner = ToolRunner(environment: ["PATH": "/usr/bin:/bin"])
    let input = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
    for _ in 0..<3 {
      let output = try await runner.run(tool, [], input: input, timeout: .seconds(30))
      #expect(output.status == 3)
      #expect(!output.signaled)
      #expect(output.standardError == "no input wanted\n")
    }
  }

  /// A tool in `directory` that writes its pid to `pid` and then sleeps for a minute.
  static func sleeper(in directory: TemporaryDirectory) throws -> (tool: URL, pid: URL) {
    let tool = directory.url.appendingPathComponent("sleeper")
    let pid = directory.url.appendingPathComponent("pid")
    try Data("#!/bin/sh\necho $$ > '\(pid.path)'\nexec sleep 60\n".utf8).write(to: tool)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    return (tool, pid)
  }

  /// The pid a sleeper wrote, once it is there.
  static func waitForPid(_ file: URL) async throws -> pid_t {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if let text = try? String(contentsOf: file, encoding: .utf8),
        let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
      {
        return pid
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw CancellationError()
  }

  /// The processes this process holds a pidfd for (`Pid:` in `/proc/self/fdinfo`).
  static func pidfdTargets() -> Set<pid_t> {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo"))
    var pids: Set<pid_t> = []
    for descriptor in descriptors ?? [] {
      guard
        let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
      else { continue }
      for line in info.split(separator: "\n") where line.hasPrefix("Pid:") {
        if let pid = pid_t(line.dropFirst(4).trimmingCharacters(in: .whitespaces)) {
          pids.insert(pid)
        }
      }
    }
    return pids
  }

  /// A running tool is held by a pidfd, and cancelling its run kills it through that.
  @Test func aCancelledToolIsKilledThroughItsPidfd() async throws {
    let directory = try TemporaryDirectory()
    let sleeper = try Self.sleeper(in: directory)
    let runner = ToolRunner(environment: ["PATH": "/usr/bin:/bin"])
    let run = Task { try await runner.run(sleeper.tool, [], timeout: .seconds(120)) }
    let pid = try await Self.waitForPid(sleeper.pid)
    let deadline = Date().addingTimeInterval(5)
    while !Self.pidfdTargets().contains(pid), Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(Self.pidfdTargets().contains(pid), "no pidfd for the tool")
    run.cancel()
    let output = try? await run.value
    // Killed (SIGKILL), not run for its minute.
    #expect(output?.signaled ?? true)
    #expect(output?.status ?? SIGKILL == SIGKILL)
    #expect(kill(pid, 0) != 0, "the tool still runs")
    #expect(!Self.pidfdTargets().contains(pid), "the pidfd stays open")
  }

  /// A tool that outlives its deadline is stopped and reported, not waited for.
  @Test func aToolPastItsDeadlineIsStopped() async throws {
    let directory = try TemporaryDirectory()
    let sleeper = try Self.sleeper(in: directory)
    let runner = ToolRunner(environment: ["PATH": "/usr/bin:/bin"])
    await #expect(throws: KeyboardClientFailure.self) {
      try await runner.run(sleeper.tool, [], timeout: .milliseconds(300))
    }
    let pid = try await Self.waitForPid(sleeper.pid)
    #expect(kill(pid, 0) != 0, "the tool still runs")
  }
}
