import Foundation
import LiveTestSupport
import Testing

/// `--jobs`, `--silence` and `--max-utterance`: what they change, and what they refuse.
extension CommandTests {
  @Suite struct DecodingOptionsCommandTests {
    static let librivox = SpeechTestData.directory.appendingPathComponent("librivox")
    static let clips = ["0870", "0880", "0890", "0920", "0930"].map {
      librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-\($0).wav")
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aBatchPrintsTheSameFilesInTheSameOrderWithTwoJobsAsWithOne() async throws {
      let inputs = ([SpeechTestData.goForward] + Self.clips).flatMap { ["-i", $0.path] }
      let one = try await TranscribeProcess.run(["--jobs", "1"] + inputs, timeout: 180)
      let two = try await TranscribeProcess.run(["--jobs", "2"] + inputs, timeout: 180)
      #expect(one.status == 0, "stderr: \(one.stderr)")
      #expect(two.status == 0, "stderr: \(two.stderr)")
      #expect(two.stdout == one.stdout)
      let labels = two.stdout.split(separator: "\n").filter { $0.hasPrefix("==> ") }.map(
        String.init)
      #expect(labels == ([SpeechTestData.goForward] + Self.clips).map { "==> \($0.path) <==" })
      #expect(two.stdout.contains("go forward ten meters\n==> "))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aLongFileGivesTheSameWordsWithTwoJobsAsWithOne() async throws {
      let directory = try TemporaryDirectory()
      let long = directory.url.appendingPathComponent("librivox.wav")
      // A second's pause after each clip: the file is cut into pieces only at pauses the
      // voice-activity detector hears (read sentences run on without one).
      let pause = directory.url.appendingPathComponent("pause.wav")
      try runSox(["-n", "-r", "16000", "-c", "1", "-b", "16", pause.path, "trim", "0", "1"])
      try runSox(Self.clips.flatMap { [$0.path, pause.path] } + [long.path])
      let one = try await TranscribeProcess.run(
        ["--jobs", "1", "--input", long.path, "--format", "json"], timeout: 180)
      let two = try await TranscribeProcess.run(
        ["--jobs", "2", "--input", long.path, "--format", "json"], timeout: 180)
      #expect(one.status == 0, "stderr: \(one.stderr)")
      #expect(two.stdout == one.stdout)
      #expect(one.stdout.split(separator: "\n").count >= 3)
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aLongerSilenceJoinsUtterancesThatAShortOneSplits() async throws {
      let directory = try TemporaryDirectory()
      let twice = directory.url.appendingPathComponent("twice.wav")
      // goforward, 1 s of silence, goforward: two utterances, or one with a 3 s --silence.
      try runSox([
        "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
        SpeechTestData.goForward.path, twice.path, "pad", "0", "1", "repeat", "1",
      ])
      let split = try await TranscribeProcess.run(["--input", twice.path])
      let joined = try await TranscribeProcess.run(["--silence", "3", "--input", twice.path])
      #expect(split.stdout == "go forward ten meters\ngo forward ten meters\n")
      #expect(joined.stdout == "go forward ten meters go forward ten meters\n")
    }

    @Test(arguments: [
      (["--jobs", "0"], "--jobs must be"),
      (["--silence", "0"], "--silence must be"),
      (["--silence", "inf"], "--silence must be"),
      (["--silence", "nan"], "--silence must be"),
      (["--max-utterance=-1"], "--max-utterance must be"),
      (["--max-utterance", "1e308"], "--max-utterance must be"),
    ])
    func badDecodingOptionsAreUsageErrors(arguments: [String], message: String) async throws {
      let output = try await TranscribeProcess.run(arguments + ["--preview"], timeout: 30)
      #expect(output.status == 64)
      #expect(output.stderr.contains(message))
    }

    @Test func helpDescribesTheDecodingOptions() async throws {
      let output = try await TranscribeProcess.run(["--help"], timeout: 30)
      for option in ["--jobs <n>", "--silence <seconds>", "--max-utterance <seconds>"] {
        #expect(output.stdout.contains(option))
      }
    }
  }
}
