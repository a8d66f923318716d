import Foundation
import LiveTestSupport
import Moonshine
import Testing

@testable import transcribe

/// The voice-activity detector through the command-line tool: `--vad`, `--vad-threshold`,
/// `--vad-model`, their faults, and speech in a noisy room from a file, standard input and the
/// virtual microphone.
extension CommandTests {
  @Suite struct VoiceActivityOptionTests {
    static let goForward = SpeechTestData.goForward.path

    @Test(arguments: ["1.5", "0", "1", "-0.2", "nan"])
    func aThresholdOutsideZeroToOneIsAUsageError(value: String) async throws {
      let output = try await TranscribeProcess.run(
        ["--vad-threshold", value, "-i", Self.goForward])
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--vad-threshold must be a probability between 0 and 1"))
    }

    @Test func anUnknownDetectorInTheEnvironmentIsAUsageError() async throws {
      let output = try await TranscribeProcess.run(
        ["-i", Self.goForward], environment: ["TRANSCRIBE_VAD": "loud"])
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("TRANSCRIBE_VAD must be silero or energy, not 'loud'"))
    }

    @Test func aModelFileWithTheEnergyDetectorIsAUsageError() async throws {
      let output = try await TranscribeProcess.run(
        ["--vad", "energy", "--vad-model", "/tmp/x.onnx", "-i", Self.goForward])
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--vad-model names Silero VAD's model"))
    }

    @Test func serveChecksTheSameOptions() async throws {
      let output = try await TranscribeProcess.run(["serve", "--vad-threshold", "2"])
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--vad-threshold must be a probability"))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aMissingModelFileNamesItAndTheOption() async throws {
      for arguments in [
        ["--vad", "silero", "--vad-model", "/nonexistent/vad.onnx"],
        ["--vad-model", "/nonexistent/vad.onnx"],
      ] {
        let output = try await TranscribeProcess.run(arguments + ["-i", Self.goForward])
        #expect(output.status == 5, "stderr: \(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        #expect(
          output.stderr.hasPrefix("transcribe: error: Silero VAD's model /nonexistent/vad.onnx"))
        #expect(output.stderr.contains("--vad-model"))
        #expect(output.stderr.contains("--vad energy"))
      }
      // Named in the environment, it is the file meant too.
      let named = try await TranscribeProcess.run(
        ["-i", Self.goForward], environment: ["TRANSCRIBE_VAD_MODEL": "/nonexistent/vad.onnx"])
      #expect(named.status == 5, "stderr: \(named.stderr)")
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aFileThatIsNotAModelSaysSo() async throws {
      let directory = try TemporaryDirectory()
      let file = directory.url.appendingPathComponent("vad.onnx")
      try Data("certainly not a model".utf8).write(to: file)
      let output = try await TranscribeProcess.run(
        ["--vad", "silero", "--vad-model", file.path, "-i", Self.goForward])
      #expect(output.status == 5, "stderr: \(output.stderr)")
      #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
      #expect(output.stderr.contains("\(file.path) is not a usable model"))
      #expect(output.stderr.contains("--vad energy"))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func withoutONNXRuntimeSileroIsAnErrorWhenAskedForAndTheFallbackOtherwise() async throws {
      let missing = ["TRANSCRIBE_ONNXRUNTIME": "/nonexistent/libonnxruntime.so.1"]
      let asked = try await TranscribeProcess.run(
        ["--vad", "silero", "-i", Self.goForward], environment: missing)
      #expect(asked.status == 5, "stderr: \(asked.stderr)")
      #expect(asked.stderr.split(separator: "\n").count == 1, "\(asked.stderr)")
      #expect(asked.stderr.hasPrefix("transcribe: error: Silero VAD needs ONNX Runtime: "))
      #expect(asked.stderr.contains("--vad energy"))
      // Not asked for: the energy detector cuts the speech, and pocketsphinx decodes it.
      let fallback = try await TranscribeProcess.run(["-i", Self.goForward], environment: missing)
      #expect(fallback.status == 0, "stderr: \(fallback.stderr)")
      #expect(fallback.stdout == "go forward ten meters\n")
    }

    @Test @MainActor func theStatusLineNamesTheDetector() {
      let file = URL(fileURLWithPath: "/talk.wav")
      #expect(
        TranscriptionSession.startMessage(
          for: .file(file), engine: .moonshine, detector: "Silero VAD", preview: false)
          == "Transcribing /talk.wav with Moonshine and Silero VAD…")
      #expect(
        TranscriptionSession.startMessage(
          for: .microphone, engine: .pocketsphinx, detector: "the energy detector",
          preview: false)
          == "Listening to the default microphone with pocketsphinx and the energy detector. "
          + "Press Ctrl-C to stop.")
    }
  }

  /// Moonshine with Silero VAD in a room with a fan, against the energy detector.
  @Suite(
    .enabled(
      if: MoonshineTestData.testsRun && SpeechTestData.isInstalled,
      "needs Moonshine and Silero VAD (./scripts/install-dependencies.sh)"))
  struct NoisyRoomCommandTests {
    func errorRate(_ text: String, _ room: NoisySpeech.Recording) -> Double {
      let reference = WordErrorRate.normalized(room.references.joined(separator: " "))
      return Double(WordErrorRate.distance(reference, WordErrorRate.normalized(text)))
        / Double(reference.count)
    }

    @Test func aNoisyRecordingIsTranscribedNearlyWordForWord() async throws {
      let directory = try TemporaryDirectory()
      let room = try NoisySpeech.room(in: directory.url, snr: 10)
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", room.url.path], timeout: 120)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let rate = errorRate(output.stdout, room)
      #expect(rate <= 0.06, "WER \(rate): \(output.stdout)")
      // The energy detector, asked for, still works (and loses more in the same room).
      let energy = try await TranscribeProcess.run(
        ["--engine", "moonshine", "--vad", "energy", "-i", room.url.path], timeout: 120)
      #expect(energy.status == 0, "stderr: \(energy.stderr)")
      #expect(errorRate(energy.stdout, room) > rate)
    }

    @Test func standardInputInANoisyRoomEndsUtterancesOnlyBetweenSentences() async throws {
      let directory = try TemporaryDirectory()
      let room = try NoisySpeech.room(in: directory.url, snr: 10)
      let output = try await TranscribeProcess.run(
        ["--engine", "moonshine", "-i", "-"], timeout: 120,
        shellScript: "exec \"$0\" \"$@\" < '\(room.url.path)'")
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stdout.split(separator: "\n")
      #expect(lines.count == room.references.count, "\(lines)")
      #expect(errorRate(output.stdout, room) <= 0.08, "\(output.stdout)")
    }

    @Test(
      .enabled(
        if: PythonClient.hasModule("websockets"), "needs python3's websockets (for the vosk client)"
      ))
    func serveHearsWholeSentencesOnItsStreamsAndUploads() async throws {
      let directory = try TemporaryDirectory()
      let room = try NoisySpeech.room(in: directory.url, snr: 10)
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      let client = try await PythonClient.run(
        "vosk_client.py", [server.webSocketURL, room.url.path])
      #expect(client.status == 0, "client stderr: \(client.stderr)")
      let finals = ServeWebSocketCommandTests.replies(client.stdout)
        .compactMap { $0["text"] as? String }.filter { !$0.isEmpty }
      #expect(finals.count == room.references.count, "\(finals)")
      #expect(errorRate(finals.joined(separator: " "), room) <= 0.08, "\(finals)")
      let upload = try runCommand(
        "/usr/bin/curl",
        [
          "-s", server.baseURL + "/v1/audio/transcriptions", "-F", "file=@\(room.url.path)",
          "-F", "model=moonshine", "-F", "response_format=text",
        ])
      #expect(errorRate(upload, room) <= 0.06, "\(upload)")
      let output = await server.terminate()
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("serving with Moonshine and Silero VAD"), "\(output.stderr)")
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"))
    func theMicrophoneInANoisyRoomHearsWholeSentences() async throws {
      let server = try VirtualMicrophone.start("cli-noisy-room")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let room = try NoisySpeech.room(in: directory.url, snr: 10)
      let process = TranscribeProcess(
        ["--engine", "moonshine", "--duration", "\(Int(room.duration) + 4)"],
        environment: server.environment)
      try process.start()
      #expect(try await server.waitForRecording(), "transcribe never started recording")
      try server.play(room.url)
      let output = await process.wait(timeout: room.duration + 40)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stdout.split(separator: "\n")
      #expect(lines.count == room.references.count, "\(lines)")
      let rate = errorRate(output.stdout, room)
      #expect(rate <= 0.08, "WER \(rate): \(output.stdout)")
    }
  }
}
