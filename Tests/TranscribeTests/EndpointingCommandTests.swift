import Foundation
import LiveTestSupport
import Testing

/// Sentence endpointing with real audio: the virtual microphone, a vosk client streaming to
/// `transcribe serve`, and a file hear five sentences with a thinking pause inside each as five
/// utterances.
extension CommandTests {
  @Suite(
    .enabled(
      if: MoonshineTestData.testsRun && SpeechTestData.isInstalled,
      "needs Moonshine and Silero VAD (./scripts/install-dependencies.sh)"))
  struct EndpointingCommandTests {
    /// The five sentences, each with a `pause` inside (0.8 s), one after another with 2 s of
    /// silence between them (and before and after), as one 16 kHz WAV file.
    static func recording(
      in directory: URL, pause: Double = 0.8
    ) throws -> (url: URL, references: [String]) {
      let files = try ThinkingPauses.files(pause: pause, in: directory)
      let gap = directory.appendingPathComponent("gap.wav")
      _ = try runSox(["-n", "-r", "16000", "-c", "1", "-b", "16", gap.path, "trim", "0", "2"])
      let url = directory.appendingPathComponent("thinking-pauses.wav")
      _ = try runSox([gap.path] + files.flatMap { [$0.url.path, gap.path] } + [url.path])
      return (url, files.map(\.reference))
    }

    static func errorRate(_ text: String, _ references: [String]) -> Double {
      let reference = WordErrorRate.normalized(references.joined(separator: " "))
      return Double(WordErrorRate.distance(reference, WordErrorRate.normalized(text)))
        / Double(reference.count)
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"))
    func theMicrophoneHearsEachSentenceWholeThroughItsPause() async throws {
      let server = try VirtualMicrophone.start("cli-thinking-pauses")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let recording = try Self.recording(in: directory.url)
      let duration = Double(try NoisySpeech.samples(of: recording.url).count) / 16_000
      let process = TranscribeProcess(
        ["--engine", "moonshine", "--duration", "\(Int(duration) + 4)"],
        environment: server.environment)
      try process.start()
      #expect(try await server.waitForRecording(), "transcribe never started recording")
      try server.play(recording.url)
      let output = await process.wait(timeout: duration + 40)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stdout.split(separator: "\n")
      #expect(lines.count == 5, "\(lines)")
      let rate = Self.errorRate(output.stdout, recording.references)
      #expect(rate <= 0.03, "WER \(rate): \(output.stdout)")
    }

    @Test(
      .enabled(
        if: PythonClient.hasModule("websockets"), "needs python3's websockets (for the vosk client)"
      ))
    func aVoskStreamGetsOneFinalResultPerSentence() async throws {
      let directory = try TemporaryDirectory()
      let recording = try Self.recording(in: directory.url)
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      let client = try await PythonClient.run(
        "vosk_client.py", [server.webSocketURL, recording.url.path])
      #expect(client.status == 0, "client stderr: \(client.stderr)")
      let finals = ServeWebSocketCommandTests.replies(client.stdout)
        .compactMap { $0["text"] as? String }.filter { !$0.isEmpty }
      #expect(finals.count == 5, "\(finals)")
      let rate = Self.errorRate(finals.joined(separator: " "), recording.references)
      #expect(rate <= 0.03, "WER \(rate): \(finals)")
      // With the fixed pause, the same stream is cut inside the sentences.
      let fixed = try await ServeProcess(["--engine", "moonshine", "--endpointing", "fixed"])
      defer { fixed.kill() }
      let cut = try await PythonClient.run(
        "vosk_client.py", [fixed.webSocketURL, recording.url.path])
      let cutFinals = ServeWebSocketCommandTests.replies(cut.stdout)
        .compactMap { $0["text"] as? String }.filter { !$0.isEmpty }
      #expect(cutFinals.count > 5, "\(cutFinals)")
    }

    /// A file has what follows each pause: the five clips read one straight after another (no
    /// gap but the clips' own edges), each with a thinking pause inside, come out as their
    /// sentences however long the pause. With 1.2 s pauses the recording is longer than an
    /// utterance may be and has no pause long enough to end one, so it is cut for length, at
    /// the quietest point: inside a sentence, which is then decoded again across the cut.
    @Test(arguments: [0.5, 0.8, 1.2])
    func aFileKeepsEachSentenceWholeWhereverItsPauseFalls(pause: Double) async throws {
      let directory = try TemporaryDirectory()
      let files = try ThinkingPauses.files(pause: pause, in: directory.url)
      let url = directory.url.appendingPathComponent("read-on.wav")
      _ = try runSox(files.map(\.url.path) + [url.path])
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "--format", "json", "-i", url.path])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let utterances = output.stdout.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
      }.filter { $0["type"] as? String == "utterance" }
      let texts = utterances.compactMap { $0["text"] as? String }
      let references = files.map(\.reference)
      let rate = Self.errorRate(texts.joined(separator: " "), references)
      #expect(rate <= 0.015, "WER \(rate): \(texts)")
      // An utterance per sentence, no utterance ending at a thinking pause. Clips 0880 and 0890
      // are one sentence in the book ("He was not an ill-disposed young man, unless to be
      // rather cold-hearted…"), so read on without a gap they may come out as one.
      let sentences = [[[0], [1, 2], [3], [4]], [[0], [1], [2], [3], [4]]]
      #expect(
        sentences.contains { grouping in
          grouping.count == texts.count
            && zip(grouping, texts).allSatisfy { clips, text in
              Self.errorRate(text, clips.map { references[$0] }) <= 0.1
            }
        }, "\(texts)")
      // In order, each within the recording, starting where the one before ended or later.
      let spans = utterances.compactMap { utterance -> (Double, Double)? in
        guard let start = utterance["start"] as? Double, let end = utterance["end"] as? Double
        else { return nil }
        return (start, end)
      }
      #expect(spans.count == texts.count)
      for (earlier, later) in zip(spans, spans.dropFirst()) {
        #expect(earlier.0 < earlier.1 && earlier.1 <= later.0, "\(spans)")
      }
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"))
    func aRealtimeSessionAsksForSemanticVADAndGetsWholeSentences() async throws {
      let directory = try TemporaryDirectory()
      // "He might even have been made | amiable himself", a 0.8 s pause after "made".
      let file = try ThinkingPauses.files(pause: 0.8, in: directory.url)[4]
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      func items(_ detection: [String]) async throws -> [String] {
        let answer = try await ServeRealtimeCommandTests.client(
          [
            server.baseURL, file.url.path, "--client", "raw", "--pace", "2", "--silence", "2.5",
            "--wait-completed", "1", "--timeout", "10", "--model", "moonshine",
          ] + detection)
        return ServeRealtimeCommandTests.events(
          answer, "conversation.item.input_audio_transcription.completed"
        ).compactMap { $0["transcript"] as? String }
      }
      let semantic = try await items(["--turn-detection", "semantic_vad"])
      #expect(semantic.count == 1, "\(semantic)")
      #expect(
        semantic.first.map(WordErrorRate.normalized)
          == ["he", "might", "even", "have", "been", "made", "amiable", "himself"], "\(semantic)")
      // Server VAD is the fixed pause: the sentence is cut at its pause.
      let fixed = try await items(["--silence-duration-ms", "500"])
      #expect(fixed.count == 2, "\(fixed)")
    }
  }
}
