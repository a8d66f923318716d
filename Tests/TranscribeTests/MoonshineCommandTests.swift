import Foundation
import LiveTestSupport
import Testing

/// The Moonshine engine through the command-line tool and `transcribe serve`, with the real
/// model and real clients: files, standard input, subtitles, the server's WebSocket and REST
/// endpoints, and the faults a user meets when it is not (fully) installed.
extension CommandTests {
  @Suite(.enabled(if: MoonshineTestData.testsRun && SpeechTestData.isInstalled, "needs Moonshine"))
  struct MoonshineCommandTests {
    static let goForward = SpeechTestData.goForward.path
    static let librivox = SpeechTestData.directory.appendingPathComponent("librivox")
    /// Leaves the engine to the command's own default, as a user's shell does.
    static let defaultEngine = ["TRANSCRIBE_ENGINE": ""]

    @Test func moonshineIsTheDefaultWhenInstalledAndTheStatusLineNamesIt() async throws {
      let output = try await TranscribeProcess.run(
        ["--input", Self.goForward], environment: Self.defaultEngine)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "Go forward ten metres.\n")
      let explicit = try await TranscribeProcess.run([
        "--engine", "moonshine", "-i", Self.goForward,
      ])
      #expect(explicit.stdout == output.stdout)
      let named = try await TranscribeProcess.run(
        ["-i", Self.goForward], environment: ["TRANSCRIBE_ENGINE": "moonshine"])
      #expect(named.stdout == output.stdout)
    }

    /// The README's quick start shows what `./scripts/quickstart.sh` prints on a machine without
    /// a microphone (here: a PulseAudio server that is not there), word for word.
    @Test func theReadmeShowsWhatTheQuickStartPrints() async throws {
      let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
      let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
      let lead = "On a machine without a microphone, the first command prints:\n\n```\n"
      let start = try #require(readme.range(of: lead), "the README has no quick-start output")
      let end = try #require(readme[start.upperBound...].range(of: "```\n"))
      let shown = String(readme[start.upperBound..<end.lowerBound])

      let output = try await TranscribeProcess.run(
        [root.appendingPathComponent("scripts/quickstart.sh").path],
        environment: [
          "TRANSCRIBE": TranscribeProcess.executable.path, "TRANSCRIBE_ENGINE": "",
          "PULSE_SERVER": "unix:/tmp/no-such-pulse-\(getpid())/native",
        ], shellScript: #"exec "$1""#)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let said = output.stderr.split(separator: "\n").filter { $0.hasPrefix("quickstart: ") }
      let printed = said.map { "\($0)\n" }.joined() + output.stdout
      #expect(printed == shown)
    }

    @Test func theLibriVoxClipsComeOutNearlyWordForWord() async throws {
      let lines = try String(
        contentsOf: Self.librivox.appendingPathComponent("transcription"), encoding: .utf8
      ).split(separator: "\n")
      var errors = 0
      var words = 0
      for line in lines {
        // "<s> words </s> (file-id)"
        guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else {
          continue
        }
        let id = line[line.index(after: open)..<close]
        let reference = WordErrorRate.normalized(
          String(line[..<open]).replacingOccurrences(of: "<s>", with: "")
            .replacingOccurrences(of: "</s>", with: ""))
        let output = try await TranscribeProcess.run(
          ["--engine", "moonshine", "-i", Self.librivox.appendingPathComponent("\(id).wav").path])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let hypothesis = WordErrorRate.normalized(output.stdout)
        errors += WordErrorRate.distance(reference, hypothesis)
        words += reference.count
      }
      #expect(words > 50)
      let rate = Double(errors) / Double(max(words, 1))
      #expect(rate <= 0.05, "WER \(rate)")
    }

    @Test func aThinkingPauseInsideASentenceNoLongerCutsIt() async throws {
      // The issue's measure: each LibriVox sentence with a 0.8 s pause at a word boundary.
      let directory = try TemporaryDirectory()
      let files = try ThinkingPauses.files(pause: 0.8, in: directory.url)
      func run(_ options: [String]) async throws -> (utterances: Int, rate: Double) {
        var utterances = 0
        var errors = 0
        var words = 0
        for file in files {
          let output = try await TranscribeProcess.run(
            ["--engine", "moonshine"] + options + ["-i", file.url.path])
          #expect(output.status == 0, "stderr: \(output.stderr)")
          utterances += output.stdout.split(separator: "\n").count
          let reference = WordErrorRate.normalized(file.reference)
          errors += WordErrorRate.distance(reference, WordErrorRate.normalized(output.stdout))
          words += reference.count
        }
        return (utterances, Double(errors) / Double(max(words, 1)))
      }
      // Sentence endpointing is the default: five sentences, five utterances.
      let sentence = try await run([])
      #expect(sentence.utterances == 5)
      #expect(sentence.rate <= 0.02, "WER \(sentence.rate)")
      // The fixed pause cuts most of them in two, and misreads words at the cuts.
      let fixed = try await run(["--endpointing", "fixed"])
      #expect(fixed.utterances >= 8)
      #expect(fixed.rate > sentence.rate)
      // Standard input streams through the same rule.
      let input = Pipe()
      let process = TranscribeProcess(["--engine", "moonshine", "-i", "-"])
      process.process.standardInput = input
      try process.start()
      input.fileHandleForWriting.write(try Data(contentsOf: files[4].url))
      try input.fileHandleForWriting.close()
      let streamed = await process.wait(timeout: 60)
      #expect(streamed.status == 0, "stderr: \(streamed.stderr)")
      #expect(streamed.stdout.split(separator: "\n").count == 1, "\(streamed.stdout)")
    }

    @Test(arguments: [
      (
        ["--max-silence", "0.2", "--silence", "0.3"],
        "--max-silence (0.2 s) must be at least --silence"
      ),
      (
        ["--max-silence", "2", "--endpointing", "fixed"],
        "--max-silence applies to --endpointing sentence"
      ),
      (["--max-silence", "-1"], "--max-silence must be a number of seconds"),
      (["--endpointing", "semantic"], "--endpointing"),
    ])
    func badEndpointingOptionsAreUsageErrors(arguments: [String], message: String) async throws {
      let output = try await TranscribeProcess.run(arguments + ["--preview"], timeout: 30)
      #expect(output.status == 64)
      #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func standardInputIsTranscribedAsItStreams() async throws {
      let input = Pipe()
      let process = TranscribeProcess(["--engine", "moonshine", "--raw", "-i", "-"])
      process.process.standardInput = input
      try process.start()
      input.fileHandleForWriting.write(try Data(contentsOf: SpeechTestData.goForward))
      try input.fileHandleForWriting.close()
      let output = await process.wait(timeout: 60)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      // A stream's utterance ends at the pause, so its words may be written "ten" or "10",
      // "meters" or "metres".
      #expect(WordErrorRate.normalized(output.stdout) == ["go", "forward", "ten", "meters"])
      #expect(output.stdout.hasPrefix("Go forward ") && output.stdout.hasSuffix(".\n"))
    }

    @Test func subtitlesHaveOrderedCuesWithinTheAudio() async throws {
      let clip = Self.librivox.appendingPathComponent(
        "sense_and_sensibility_01_austen_64kb-0870.wav")
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", clip.path, "--format", "srt"])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let times = output.stdout.split(separator: "\n").filter { $0.contains(" --> ") }.map {
        $0.components(separatedBy: " --> ").map(Self.seconds)
      }
      #expect(!times.isEmpty, "\(output.stdout)")
      #expect(times.allSatisfy { $0[0] < $0[1] && $0[1] <= 7.2 && $0[1] - $0[0] <= 7 })
      #expect(zip(times, times.dropFirst()).allSatisfy { $0.0[1] <= $0.1[0] })
    }

    @Test func jsonWordsHaveConfidencesAndNoAlternatives() async throws {
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", Self.goForward, "--format", "json"])
      let first = try #require(output.stdout.split(separator: "\n").first)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
      let segments = try #require(object["segments"] as? [[String: Any]])
      #expect(segments.map { $0["word"] as? String } == ["Go", "forward", "ten", "metres."])
      for segment in segments {
        let confidence = try #require(segment["confidence"] as? Double)
        #expect(confidence > 0 && confidence <= 1)
        #expect((segment["alternatives"] as? [String]) == [])
      }
    }

    @Test func onnxRuntimesTelemetryStaysOffAndLeavesNothingInTMPDIR() async throws {
      let directory = try TemporaryDirectory()
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", Self.goForward], environment: ["TMPDIR": directory.url.path]
      )
      #expect(output.status == 0, "stderr: \(output.stderr)")
      // ONNX Runtime's telemetry client writes its session file (.ses) there when it starts.
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == [])
    }

    @Test func aModelDirectoryThatIsNotThereNamesItAndTheOption() async throws {
      let output = try await TranscribeProcess.run(
        ["--model", "/nonexistent/moonshine", "-i", Self.goForward])
      #expect(output.status == 5, "stderr: \(output.stderr)")
      #expect(output.stdout.isEmpty)
      #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
      #expect(output.stderr.contains("model directory not found: '/nonexistent/moonshine'"))
      #expect(output.stderr.contains("--model"))
    }

    @Test func aMissingONNXRuntimeSaysHowToInstallIt() async throws {
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", Self.goForward],
        environment: ["TRANSCRIBE_ONNXRUNTIME": "/nonexistent/libonnxruntime.so.1"])
      #expect(output.status == 5, "stderr: \(output.stderr)")
      #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
      #expect(output.stderr.hasPrefix("transcribe: error: Moonshine is not installed: "))
      #expect(output.stderr.contains("/nonexistent/libonnxruntime.so.1"))
      #expect(output.stderr.contains("install-dependencies.sh"))
      #expect(output.stderr.contains("--engine pocketsphinx"))
    }

    @Test func notAnONNXRuntimeLibraryIsReportedAsSuch() async throws {
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", Self.goForward],
        environment: ["TRANSCRIBE_ONNXRUNTIME": "/lib/x86_64-linux-gnu/libz.so.1"])
      #expect(output.status == 5, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("Moonshine is not installed"), "\(output.stderr)")
    }

    @Test(arguments: ["encoder_model.onnx", "tokenizer.bin"])
    func aDamagedModelFileIsNamed(file: String) async throws {
      let directory = try TemporaryDirectory()
      let installed = MoonshineTestData.modelDirectory
      for name in ["encoder_model.onnx", "decoder_model_merged.onnx", "tokenizer.bin"] {
        let source = installed.appendingPathComponent(name)
        let target = directory.url.appendingPathComponent(name)
        if name == file {
          // Cut to a third: a download or copy that stopped part-way.
          let data = try Data(contentsOf: source)
          try data.prefix(data.count / 3).write(to: target)
        } else {
          try FileManager.default.createSymbolicLink(at: target, withDestinationURL: source)
        }
      }
      let output = try await TranscribeProcess.run(
        ["--model", directory.url.path, "-i", Self.goForward])
      #expect(output.status == 5, "stderr: \(output.stderr)")
      #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
      #expect(output.stderr.contains("could not be loaded"), "\(output.stderr)")
      #expect(output.stderr.contains(file), "\(output.stderr)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"))
    func serveStreamsMoonshinesWordsToAVoskClientAndUploadsMayPickPocketsphinx()
      async throws
    {
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      let client = try await PythonClient.run(
        "vosk_client.py", [server.webSocketURL, Self.goForward])
      #expect(client.status == 0, "client stderr: \(client.stderr)")
      let replies = ServeWebSocketCommandTests.replies(client.stdout)
      let finals = replies.compactMap { $0["text"] as? String }.filter { !$0.isEmpty }
      #expect(finals.count == 1, "\(client.stdout)")
      #expect(
        WordErrorRate.normalized(finals.joined()) == ["go", "forward", "ten", "meters"],
        "\(client.stdout)")
      #expect(finals.first?.hasPrefix("Go forward ") == true)
      #expect(replies.last?["close"] as? Int == 1000)

      let models = try runCommand("/usr/bin/curl", ["-s", server.baseURL + "/v1/models"])
      #expect(models.contains(#""id":"moonshine""#) && models.contains(#""id":"pocketsphinx""#))
      #expect(
        models.range(of: "moonshine")!.lowerBound < models.range(of: "pocketsphinx")!.lowerBound)

      let directory = try TemporaryDirectory()
      let wav = directory.url.appendingPathComponent("goforward.wav")
      try runSox([
        "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", Self.goForward,
        wav.path,
      ])
      for (model, text) in [
        ("moonshine", "Go forward ten metres."), ("pocketsphinx", "go forward ten meters"),
        ("whisper-1", "Go forward ten metres."),
      ] {
        let answer = try runCommand(
          "/usr/bin/curl",
          [
            "-s", server.baseURL + "/v1/audio/transcriptions", "-F", "file=@\(wav.path)",
            "-F", "model=\(model)", "-F", "response_format=text",
          ])
        #expect(answer == text + "\n", "model \(model)")
      }
      let output = await server.terminate()
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("serving with Moonshine"))
    }

    /// `00:00:01,230` → 1.23.
    static func seconds(_ time: String) -> Double {
      let parts = time.replacingOccurrences(of: ",", with: ".").split(separator: ":")
      return parts.reduce(0) { $0 * 60 + (Double($1) ?? 0) }
    }
  }
}

/// Word error rate as speech recognition measures it: edits (substitutions, insertions,
/// deletions) over the reference's words, after writing both the same way.
enum WordErrorRate {
  /// Lower case, no punctuation, hyphens as spaces, numbers as words where the references
  /// spell them, `mr.` as `mister`, `metres` as `meters`.
  static func normalized(_ text: String) -> [String] {
    let spelled = ["10": "ten", "mr": "mister", "mrs": "missus", "metres": "meters"]
    return text.lowercased().replacingOccurrences(of: "-", with: " ")
      .split(whereSeparator: \.isWhitespace)
      .map { String($0.filter { $0.isLetter || $0.isNumber || $0 == "'" }) }
      .filter { !$0.isEmpty }
      .map { spelled[$0] ?? $0 }
  }

  /// The edit distance between two word sequences.
  static func distance(_ reference: [String], _ hypothesis: [String]) -> Int {
    var previous = Array(0...hypothesis.count)
    for (i, word) in reference.enumerated() {
      var current = [i + 1] + Array(repeating: 0, count: hypothesis.count)
      for (j, other) in hypothesis.enumerated() {
        current[j + 1] = min(
          previous[j + 1] + 1, current[j] + 1, previous[j] + (word == other ? 0 : 1))
      }
      previous = current
    }
    return previous[hypothesis.count]
  }
}
