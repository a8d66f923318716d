import Foundation
import LiveTestSupport
import Testing

/// `--engine`, `--model` and `TRANSCRIBE_ENGINE`: which engine runs, and the combinations that
/// are usage errors.
extension CommandTests {
  @Suite struct EngineOptionCommandTests {
    @Test(arguments: [
      (["--engine", "moonshine", "--grammar", "cards.gram"], "--grammar is a pocketsphinx option"),
      (["--engine", "moonshine", "--keyphrase", "hello"], "--keyphrase is a pocketsphinx option"),
      (["--engine", "moonshine", "--hmm", "/tmp"], "--hmm is a pocketsphinx option"),
      (["--engine", "moonshine", "--lm", "a.lm"], "--lm is a pocketsphinx option"),
      (["--engine", "moonshine", "--dict", "a.dict"], "--dict is a pocketsphinx option"),
      (["--engine", "pocketsphinx", "--model", "/tmp"], "--model names a Moonshine model"),
      (["--dict", "a.dict", "--model", "/tmp"], "--model names a Moonshine model"),
      (["--model", " "], "--model needs a directory"),
      (["--engine", "vosk"], "--engine"),
    ])
    func conflictingEngineOptionsAreUsageErrors(
      arguments: [String], message: String
    )
      async throws
    {
      let output = try await TranscribeProcess.run(
        arguments + ["--input", "/nonexistent.wav"], timeout: 30)
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains(message), "stderr: \(output.stderr)")
      #expect(output.stdout.isEmpty)
    }

    @Test func anUnknownEngineInTheEnvironmentIsAUsageErrorNamingIt() async throws {
      let output = try await TranscribeProcess.run(
        ["--input", "/nonexistent.wav"], environment: ["TRANSCRIBE_ENGINE": "vosk"],
        timeout: 30)
      #expect(output.status == 64)
      #expect(
        output.stderr.contains("TRANSCRIBE_ENGINE must be moonshine, pocketsphinx or whisper"))
      #expect(output.stderr.contains("'vosk'"))
    }

    @Test func helpDescribesTheEngineOptions() async throws {
      let output = try await TranscribeProcess.run(["--help"], timeout: 30)
      for text in ["--engine <engine>", "--model <dir>", "TRANSCRIBE_ENGINE"] {
        #expect(output.stdout.contains(text), "help: \(output.stdout)")
      }
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aPocketsphinxOptionPicksPocketsphinxWhateverTheEnvironmentSays() async throws {
      let output = try await TranscribeProcess.run(
        ["--input", SpeechTestData.goForward.path, "--keyphrase", "forward"],
        environment: ["TRANSCRIBE_ENGINE": "moonshine"], timeout: 60)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      // pocketsphinx's key phrase, as it spots it: Moonshine would write "Go forward 10 meters."
      #expect(output.stdout == "forward\n")
    }
  }
}
