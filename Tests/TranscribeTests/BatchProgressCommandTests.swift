import Foundation
import LiveTestSupport
import Testing

extension CommandTests {
  /// A run of several files with standard error on a terminal (a pseudo-terminal from
  /// `script(1)`) and the transcript into a file.
  @Suite(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
  struct BatchProgressCommandTests {
    /// Runs `transcribe arguments > transcript` under `script`, whose output is what the
    /// command wrote to the terminal: its standard error.
    func runOnATerminal(
      _ arguments: [String], transcript: URL
    ) async throws -> (status: Int32, terminal: String) {
      let quoted = ([TranscribeProcess.executable.path] + arguments).map {
        "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
      }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
      process.arguments = [
        "-qec", quoted.joined(separator: " ") + " > '\(transcript.path)'", "/dev/null",
      ]
      var environment = ProcessInfo.processInfo.environment
      environment["DEPENDENCIES_CONTEXT"] = "live"
      environment["TRANSCRIBE_ENGINE"] = "pocketsphinx"
      process.environment = environment
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      try process.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func severalFilesShowOneProgressRowForTheBatchErasedAtTheEnd() async throws {
      let directory = try TemporaryDirectory()
      let transcript = directory.url.appendingPathComponent("transcript.txt")
      let file = SpeechTestData.goForward.path
      let (status, terminal) = try await runOnATerminal(
        ["-i", file, "-i", file, "-i", file], transcript: transcript)
      #expect(status == 0)
      let header = "==> \(file) <==\ngo forward ten meters\n"
      #expect(try String(contentsOf: transcript, encoding: .utf8) == header + header + header)
      // One start message for the batch, none per file.
      // It names the engine and the voice-activity detector.
      #expect(
        terminal.contains("Transcribing 3 files with pocketsphinx and Silero VAD…")
          || terminal.contains("Transcribing 3 files with pocketsphinx and the energy detector…"))
      #expect(!terminal.contains("Transcribing \(file)"))
      // Every drawing of the row is the batch's: files finished of three, and a percent.
      let rows = terminal.components(separatedBy: "transcribing… ").dropFirst()
      #expect(!rows.isEmpty)
      for row in rows {
        #expect(row.range(of: #"^[0-3]/3 files, \d+%"#, options: .regularExpression) != nil)
      }
      #expect(terminal.contains("3/3 files, 100%"))
      // The row is erased at the end, and nothing follows.
      #expect(terminal.hasSuffix("\r\u{1B}[2K"))
    }
  }
}
