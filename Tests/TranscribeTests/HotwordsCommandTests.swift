import Foundation
import LiveTestSupport
import Testing

/// `--hotwords`, `--hotwords-file` and `--hotword-boost` through the command-line tool: bad
/// values are usage errors naming the fix, and with the real model the names come out.
extension CommandTests {
  struct HotwordsCommandTests {
    /// Checks a usage error: status 64, nothing on stdout, one line naming `needle`.
    func expectUsageError(
      _ arguments: [String], mentioning needle: String,
      sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
      let output = try await TranscribeProcess.run(
        arguments, environment: ["TRANSCRIBE_ENGINE": "moonshine"])
      #expect(output.status == 64, "stderr: \(output.stderr)", sourceLocation: sourceLocation)
      #expect(output.stdout.isEmpty, sourceLocation: sourceLocation)
      #expect(
        output.stderr.contains(needle), "stderr: \(output.stderr)",
        sourceLocation: sourceLocation)
    }

    @Test func badHotwordOptionsAreUsageErrorsNamingTheFix() async throws {
      try await expectUsageError(
        ["--hotwords", "Kallax", "--hotword-boost", "50", "-i", "x.wav"],
        mentioning: "--hotword-boost must be a number from 0 to 20")
      try await expectUsageError(
        ["--hotword-boost", "3", "-i", "x.wav"],
        mentioning: "give some")
      try await expectUsageError(
        ["--hotwords-file", "/nonexistent/names.txt", "-i", "x.wav"],
        mentioning: "--hotwords-file /nonexistent/names.txt cannot be read")
      try await expectUsageError(
        ["--hotwords", "Kallax", "--engine", "pocketsphinx", "-i", "x.wav"],
        mentioning: "--hotwords biases Moonshine, not pocketsphinx")
      try await expectUsageError(
        ["--hotwords", "Kallax", "--keyphrase", "hello computer", "-i", "x.wav"],
        mentioning: "(which --keyphrase implies)")
      let many = (0...1_000).map { "name\($0)" }.joined(separator: ",")
      try await expectUsageError(
        ["--hotwords", many, "-i", "x.wav"],
        mentioning: "the hotwords list holds 1001 phrases; at most 1000 are allowed")
      try await expectUsageError(
        ["--hotwords", String(repeating: "a", count: 101), "-i", "x.wav"],
        mentioning: "phrase 1 has 101 characters; at most 100 are allowed")
      try await expectUsageError(
        ["serve", "--port", "0", "--hotwords", "Kallax", "--hotword-boost", "-1"],
        mentioning: "--hotword-boost must be a number from 0 to 20")
      try await expectUsageError(
        ["serve", "--port", "0", "--hass-url", "http://homeassistant.local:8123"],
        mentioning: "--hass-url needs --hass-token-file")
      try await expectUsageError(
        ["serve", "--port", "0", "--hass-token-file", "/etc/hostname"],
        mentioning: "--hass-token-file is the token for --hass-url")
      try await expectUsageError(
        ["serve", "--port", "0", "--hass-url", "homeassistant:8123", "--hass-token-file", "x"],
        mentioning: "--hass-url must be Home Assistant's http(s) URL")
      try await expectUsageError(
        [
          "serve", "--port", "0", "--hass-url", "http://homeassistant.local:8123",
          "--hass-token-file", "/nonexistent/token",
        ],
        mentioning: "--hass-token-file /nonexistent/token does not exist")
    }

    @Test(
      .enabled(
        if: MoonshineTestData.testsRun
          && FileManager.default.isExecutableFile(
            atPath: "/usr/bin/espeak-ng"),
        "needs Moonshine and espeak-ng"))
    func aFileOfNamesBiasesTheTranscript() async throws {
      let directory = try TemporaryDirectory()
      let voice = directory.url.appendingPathComponent("voice.wav")
      try runCommand(
        "/usr/bin/espeak-ng",
        [
          "-v", "en-us", "-s", "150", "-w", voice.path,
          "Turn on the Kallax lamp in Siobhan's room.",
        ])
      let names = directory.url.appendingPathComponent("names.txt")
      try "# the household\nKallax\n\nSiobhan\n".write(to: names, atomically: true, encoding: .utf8)
      let plain = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", voice.path])
      #expect(plain.status == 0, "stderr: \(plain.stderr)")
      #expect(!plain.stdout.contains("Kallax"), "\(plain.stdout)")
      let biased = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", voice.path, "--hotwords-file", names.path])
      #expect(biased.status == 0, "stderr: \(biased.stderr)")
      #expect(biased.stdout.contains("Kallax"), "\(biased.stdout)")
      #expect(biased.stdout.contains("Siobhan"), "\(biased.stdout)")
      let listed = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", voice.path, "--hotwords", "Kallax, Siobhan"])
      #expect(listed.stdout == biased.stdout)
    }
  }
}
