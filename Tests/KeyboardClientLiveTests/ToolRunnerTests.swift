import Foundation
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
}
