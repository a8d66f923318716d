import Foundation
import Testing

/// `transcribe serve` with options of `transcribe` itself: refused with a usage error that
/// names the option, instead of serving as if it had not been given.
extension CommandTests {
  @Suite struct ServeOptionsCommandTests {
    @Test(arguments: [
      (["--hmm", "/nonexistent"], "--hmm"), (["--lm", "/x.lm"], "--lm"),
      (["--dict", "/x.dict"], "--dict"), (["--grammar", "/x.gram"], "--grammar"),
      (["--keyphrase", "hello"], "--keyphrase"), (["--jobs", "2"], "--jobs"),
      (["-i", "talk.wav"], "--input"), (["--format", "json"], "--format"),
      (["--duration", "2"], "--duration"), (["--raw"], "--raw"), (["--verbose"], "--verbose"),
      // `--silence` does apply: the pause that ends a Wyoming command (ServeWyomingOptionTests).
      (["--model", "/models"], "--model"),
      (["--max-utterance", "3"], "--max-utterance"), (["--device", "mic"], "--device"),
      (["--list-devices"], "--list-devices"),
    ])
    func anOptionOfTranscribeItselfIsAUsageError(
      arguments: [String], option: String
    )
      async throws
    {
      let output = try await TranscribeProcess.run(
        ["serve", "--preview", "--port", "0"] + arguments, timeout: 30)
      #expect(output.reason == .exit)
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(
        output.stderr.contains("\(option) does not apply to `transcribe serve`"),
        "stderr: \(output.stderr)")
      #expect(!output.stderr.contains("listening on"))
    }

    @Test func beforeTheSubcommandToo() async throws {
      let output = try await TranscribeProcess.run(
        ["--hmm", "/nonexistent", "serve", "--preview", "--port", "0"], timeout: 30)
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--hmm does not apply to `transcribe serve`"))
    }

    @Test func maxConnectionsMustBeAtLeastOne() async throws {
      let output = try await TranscribeProcess.run(
        ["serve", "--preview", "--port", "0", "--max-connections", "0"], timeout: 30)
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--max-connections must be a whole number of connections"))
    }

    @Test func serveHelpListsOnlyItsOwnOptions() async throws {
      let output = try await TranscribeProcess.run(["serve", "--help"], timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout.contains("--max-sessions"))
      for option in ["--hmm", "--input", "--duration", "--jobs", "--format"] {
        #expect(!output.stdout.contains(option), "\(option) in: \(output.stdout)")
      }
    }

    @Test func transcribeItselfStillChecksItsOptions() async throws {
      let output = try await TranscribeProcess.run(["--raw"], timeout: 30)
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--raw describes --input files"))
    }
  }
}
