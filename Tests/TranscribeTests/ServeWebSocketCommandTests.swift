import Foundation
import LiveTestSupport
import Testing

/// `transcribe serve` as a process, with a Python `websockets` client that does what vosk's
/// example client does (scripts/vosk_client.py): the real binary, a real client.
extension CommandTests {
  @Suite struct ServeWebSocketCommandTests {
    /// The client's replies, each a JSON object.
    static func replies(_ stdout: String) -> [[String: Any]] {
      stdout.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func previewServesAVoskClientLoremWordsPacedByTheAudio() async throws {
      let server = try await ServeProcess(["--preview"])
      // goforward.raw is 2.8 s: nine lorem words, one finished utterance of eight.
      let client = try await PythonClient.run(
        "vosk_client.py", [server.webSocketURL, SpeechTestData.goForward.path])
      let output = await server.terminate()
      #expect(client.status == 0, "client stderr: \(client.stderr)")
      let replies = Self.replies(client.stdout)
      // One reply per 0.2 s chunk (14), one for the end, then the close.
      #expect(replies.count == 16, "\(client.stdout)")
      #expect(replies.contains { $0["partial"] as? String == "lorem ipsum" })
      #expect(
        replies.contains {
          $0["text"] as? String == "lorem ipsum dolor sit amet consectetur adipiscing elit"
        })
      #expect(replies.dropLast().last?["text"] as? String == "sed")
      #expect(replies.last?["close"] as? Int == 1000)
      #expect(output.status == 0, "stderr: \(output.stderr)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func theRealModelStreamsTheWordsTheFileCommandHears() async throws {
      let file = SpeechTestData.directory
        .appendingPathComponent("librivox/sense_and_sensibility_01_austen_64kb-0930.wav")
      let expected = try await TranscribeProcess.run(["--input", file.path])
      #expect(expected.status == 0, "stderr: \(expected.stderr)")
      let server = try await ServeProcess([])
      let client = try await PythonClient.run("vosk_client.py", [server.webSocketURL, file.path])
      let output = await server.terminate()
      #expect(client.status == 0, "client stderr: \(client.stderr)")
      let replies = Self.replies(client.stdout)
      let partials = replies.compactMap { $0["partial"] as? String }.filter { !$0.isEmpty }
      let finals = replies.compactMap { $0["text"] as? String }.filter { !$0.isEmpty }
      #expect(!partials.isEmpty, "\(client.stdout)")
      #expect(!finals.isEmpty, "\(client.stdout)")
      let words = replies.compactMap { $0["result"] as? [[String: Any]] }.joined()
      #expect(words.allSatisfy { ($0["end"] as? Double ?? 0) > ($0["start"] as? Double ?? 1) })
      #expect(
        finals.joined(separator: " ")
          == expected.stdout.split(separator: "\n").joined(separator: " "),
        "\(client.stdout)")
      #expect(replies.last?["close"] as? Int == 1000)
      #expect(output.status == 0, "stderr: \(output.stderr)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func withPartialsOffEveryMessageIsAnsweredAndOnlyFinalWordsCome() async throws {
      let file = SpeechTestData.directory
        .appendingPathComponent("librivox/sense_and_sensibility_01_austen_64kb-0930.wav")
      let expected = try await TranscribeProcess.run(["--input", file.path])
      let server = try await ServeProcess(["--partials", "off"])
      let client = try await PythonClient.run("vosk_client.py", [server.webSocketURL, file.path])
      let output = await server.terminate()
      #expect(client.status == 0, "client stderr: \(client.stderr)")
      let replies = Self.replies(client.stdout)
      // The client waits for one reply to each message: it finished, so none was skipped.
      let partials = replies.compactMap { $0["partial"] as? String }
      #expect(!partials.isEmpty && partials.allSatisfy(\.isEmpty), "\(client.stdout)")
      let finals = replies.compactMap { $0["text"] as? String }.filter { !$0.isEmpty }
      #expect(
        finals.joined(separator: " ")
          == expected.stdout.split(separator: "\n").joined(separator: " "),
        "\(client.stdout)")
      #expect(output.status == 0, "stderr: \(output.stderr)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      // A closed terminal or ssh session sends SIGHUP: the same graceful stop as SIGTERM.
      arguments: [SIGTERM, SIGHUP])
    func sigtermLetsAStreamFinishItsLastWordsThenExitsZero(signal: Int32) async throws {
      let server = try await ServeProcess([])
      let client = try PythonProcess(
        "vosk_client.py", [server.webSocketURL, SpeechTestData.goForward.path, "--realtime"])
      // A second of speech in: "go forward" heard, the rest not sent yet.
      #expect(await client.waitForLines(5))
      let output = await server.terminate(signal: signal)
      let result = await client.wait()
      let replies = Self.replies(result.stdout)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      // The stream's last words, then its close with 1001 "going away".
      let words = replies.compactMap { $0["text"] as? String }.joined(separator: " ")
      #expect(words.hasPrefix("go"), "\(result.stdout)")
      // A lockstep client reads the last words as its answer; the close says why.
      #expect((replies.last?["reason"] as? String)?.contains("shutting down") == true)
      #expect(replies.last?["close"] as? Int == 1001, "\(result.stdout) \(result.stderr)")
      #expect(result.status == 0, "\(result.stderr)")
      // The operator's log says what stopped the server.
      let name = signal == SIGHUP ? "SIGHUP" : "SIGTERM"
      #expect(output.stderr.contains("shutting down (\(name))"), "stderr: \(output.stderr)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"))
    func aFrameFarOverTheLimitGetsItsErrorAndCloseNotAReset() async throws {
      let server = try await ServeProcess(["--preview"])
      let directory = try TemporaryDirectory()
      let audio = directory.url.appendingPathComponent("long.raw")
      try Data(count: 4 << 20).write(to: audio)
      // One 3 MiB frame, sent in one go: the server refuses it while it is still arriving.
      var outcomes: [String] = []
      for _ in 0..<5 {
        let result = try await PythonClient.run(
          "vosk_client.py", [server.webSocketURL, audio.path, "--chunk-bytes", "3145728"])
        let replies = Self.replies(result.stdout)
        outcomes.append(
          "\(replies.first?["error"] as? String ?? "no error") / \(replies.last?["close"] ?? "no close")"
        )
      }
      _ = await server.terminate()
      for outcome in outcomes {
        #expect(outcome.contains("over the limit of 1048576 bytes"), "\(outcome)")
        #expect(outcome.hasSuffix("/ 1009"), "\(outcome)")
      }
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"))
    func aTokenIsRequiredWhenSet() async throws {
      let server = try await ServeProcess(
        ["--preview"], environment: ["TRANSCRIBE_TOKEN": "s3cret"])
      let directory = try TemporaryDirectory()
      let audio = directory.url.appendingPathComponent("silence.raw")
      try Data(count: 19_200).write(to: audio)
      let refused = try await PythonClient.run(
        "vosk_client.py", [server.webSocketURL, audio.path])
      let accepted = try await PythonClient.run(
        "vosk_client.py", [server.webSocketURL, audio.path, "--token", "s3cret"])
      let output = await server.terminate()
      #expect(refused.status != 0)
      #expect(refused.stderr.contains("401"), "\(refused.stderr)")
      #expect(accepted.status == 0, "\(accepted.stderr)")
      #expect(Self.replies(accepted.stdout).dropLast().last?["text"] as? String == "lorem ipsum")
      #expect(!output.stderr.contains("s3cret"))
      #expect(output.status == 0)
    }
  }
}
