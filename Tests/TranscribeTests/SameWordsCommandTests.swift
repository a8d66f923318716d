import Foundation
import LiveTestSupport
import Testing

/// The same recording through every streaming path of `transcribe serve` — vosk, Realtime with
/// turn detection off and with server VAD, Wyoming, an upload with `stream=true` — cut into
/// randomly sized pieces with random pauses between them (`scripts/same_words.py`): every run
/// hears the words the path hears when the recording comes in one piece, on both engines.
///
/// Each test run draws a new seed (printed with any difference; `TRANSCRIBE_SAME_WORDS_SEED`
/// repeats one) and makes `TRANSCRIBE_SAME_WORDS_RUNS` runs per path (2 by default; the stress
/// figures in the benchmark notes come from 200).
extension CommandTests {
  @Suite(
    .enabled(
      if: PythonClient.canImport("websockets") && PythonClient.canImport("wyoming"),
      "needs python3 with websockets and wyoming (scripts/install-dependencies.sh)"),
    .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: soxPath), "needs sox"))
  struct SameWordsCommandTests {
    /// LibriVox 0870: the sentence whose words once depended on the run.
    static let clip = SpeechTestData.directory.appendingPathComponent(
      "librivox/sense_and_sensibility_01_austen_64kb-0870.wav")
    static let environment = ProcessInfo.processInfo.environment
    static let runs = Int(environment["TRANSCRIBE_SAME_WORDS_RUNS"] ?? "") ?? 2
    static let seed =
      Int(environment["TRANSCRIBE_SAME_WORDS_SEED"] ?? "") ?? .random(in: 1...1_000_000)

    @Test func pocketsphinxHearsTheSameWordsHoweverTheAudioIsCut() async throws {
      try await Self.checkEveryPath(engine: "pocketsphinx")
    }

    @Test(.enabled(if: MoonshineTestData.testsRun, "needs Moonshine"))
    func moonshineHearsTheSameWordsHoweverTheAudioIsCut() async throws {
      try await Self.checkEveryPath(engine: "moonshine")
    }

    /// Serves `engine` over HTTP and Wyoming, and runs the recording through each path.
    static func checkEveryPath(engine: String) async throws {
      let server = try await ServeProcess(
        ["--engine", engine, "--wyoming", "tcp://127.0.0.1:0"])
      defer { server.kill() }
      let wyoming = try #require(
        await ServeWyomingCommandTests.WyomingServer.uri(of: server.process))
      var references: [String: [String]] = [:]
      for path in ["vosk", "realtime", "realtime-vad", "wyoming", "stream"] {
        let output = try await PythonClient.run(
          "same_words.py",
          [
            server.baseURL, clip.path, "--path", path, "--wyoming", wyoming, "--model", engine,
            "--runs", String(runs), "--seed", String(seed),
          ], timeout: 60 + 30 * Double(runs))
        #expect(output.status == 0, "\(path): \(output.stderr)")
        let answer = try #require(
          try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any],
          "\(path): \(output.stdout) \(output.stderr)")
        let reference = try #require(answer["reference"] as? [String])
        // A path that heard nothing would agree with itself.
        #expect(reference.count > 10, "\(path): \(reference)")
        let differences = answer["differences"] as? [[String: Any]] ?? []
        #expect(
          differences.isEmpty,
          """
          \(engine), \(path): runs with seeds from \(seed) heard other words than the whole \
          recording (\(reference.joined(separator: " "))): \(differences)
          """)
        references[path] = reference
      }
      // vosk and Wyoming push the same 16 kHz samples into the same kind of stream.
      #expect(references["vosk"] == references["wyoming"])
    }
  }
}
