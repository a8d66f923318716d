import Foundation
import LiveTestSupport
import Testing

/// The real binary against real audio: files from pocketsphinx-testdata, and a real PulseAudio
/// server whose virtual microphone hears speech played into it.
extension CommandTests {
  @Suite struct FileCommandTests {
    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func rawFileIsTranscribed() async throws {
      let output = try await TranscribeProcess.run(["--input", SpeechTestData.goForward.path])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "go forward ten meters\n")
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func stereo44kFileGivesTheSameWords() async throws {
      let directory = try TemporaryDirectory()
      let source = try SpeechTestData.goForwardWAV(in: directory.url)
      let stereo = directory.url.appendingPathComponent("stereo44k.flac")
      try runSox([source.path, "-r", "44100", "-c", "2", stereo.path])
      let output = try await TranscribeProcess.run(["--input", stereo.path])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "go forward ten meters\n")
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func severalFilesAreLabelledInOrder() async throws {
      let directory = try TemporaryDirectory()
      let wav = try SpeechTestData.goForwardWAV(in: directory.url)
      let output = try await TranscribeProcess.run([
        "-i", SpeechTestData.goForward.path, "-i", wav.path,
      ])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(
        output.stdout == """
          ==> \(SpeechTestData.goForward.path) <==
          go forward ten meters
          ==> \(wav.path) <==
          go forward ten meters

          """)
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func srtHasOneCueWithTheUtterancesTimes() async throws {
      let output = try await TranscribeProcess.run([
        "--input", SpeechTestData.goForward.path, "--format", "srt",
      ])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
      #expect(lines.first == "1")
      #expect(lines.count >= 3)
      #expect(lines[1].wholeMatch(of: /00:00:0\d,\d{3} --> 00:00:0\d,\d{3}/) != nil)
      #expect(lines[2] == "go forward ten meters")
    }

    @Test func nonAudioFileIsAClearErrorWithItsStatus() async throws {
      let directory = try TemporaryDirectory()
      let text = directory.url.appendingPathComponent("notes.wav")
      try "not audio at all\n".write(to: text, atomically: true, encoding: .utf8)
      let output = try await TranscribeProcess.run(["--input", text.path])
      #expect(output.status == 6)
      #expect(output.stdout.isEmpty)
      let lines = output.stderr.split(separator: "\n")
      #expect(lines.count == 1)
      #expect(lines.first?.hasPrefix("transcribe: error: cannot read '\(text.path)'") == true)
      #expect(output.stderr.contains("--raw"))
    }

    @Test func missingFileIsAClearErrorWithItsStatus() async throws {
      let output = try await TranscribeProcess.run(["--input", "/nonexistent/talk.wav"])
      #expect(output.status == 6)
      #expect(output.stderr.contains("cannot read '/nonexistent/talk.wav'"))
    }

    @Test(
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      arguments: [#"-i "$name""#, #"--input="$name""#])
    func aFileWhoseNameIsNotUTF8IsRead(option: String) async throws {
      let directory = try TemporaryDirectory()
      let wav = try SpeechTestData.goForwardWAV(in: directory.url)
      // caf\351.wav: "café" in Latin-1, which is not UTF-8.
      let output = try await TranscribeProcess.run(
        [wav.path, directory.url.path],
        shellScript: #"name="$2/$(printf 'caf\351.wav')"; cp "$1" "$name" && exec "$0" "#
          + option)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "go forward ten meters\n")
    }

    @Test func aMissingFileWhoseNameIsNotUTF8IsNamedAsGiven() async throws {
      let output = try await TranscribeProcess.run(
        [], shellScript: #"exec "$0" -i "$(printf '/nonexistent/caf\351.wav')""#)
      #expect(output.status == 6)
      #expect(
        output.stderr.contains("cannot read '/nonexistent/caf\u{FFFD}.wav'"), "\(output.stderr)")
      #expect(!output.stderr.contains("/dev/fd/"))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aFailedFileAmongSeveralHasAnErrorLineInTheJSONStream() async throws {
      let goForward = SpeechTestData.goForward.path
      let missing = "/nonexistent/talk.wav"
      let output = try await TranscribeProcess.run([
        "-i", goForward, "-i", missing, "-i", goForward, "--format", "json",
      ])
      #expect(output.status == 6, "stderr: \(output.stderr)")
      let objects = try output.stdout.split(separator: "\n").map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      }
      let records = objects.map { ($0["type"] as? String ?? "", $0["file"] as? String ?? "") }
      // Each good file as before (its utterance, then its final line), the missing one in its
      // place as an error.
      #expect(
        records.map(\.0) == ["utterance", "final", "error", "utterance", "final"],
        "stdout: \(output.stdout)")
      #expect(records.map(\.1) == [goForward, goForward, missing, goForward, goForward])
      let error = objects[2]
      #expect((error["error"] as? String)?.contains("cannot read '\(missing)'") == true)
      #expect(error["status"] as? Int == 6)
      #expect(output.stderr.contains("transcribe: error: cannot read '\(missing)'"))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func missingModelNamesTheFileAndOption() async throws {
      let output = try await TranscribeProcess.run([
        "--input", SpeechTestData.goForward.path, "--hmm", "/nonexistent/model",
      ])
      #expect(output.status == 5)
      #expect(output.stderr.contains("'/nonexistent/model'"))
      #expect(output.stderr.contains("--hmm"))
    }
  }

}

extension CommandTests {
  @Suite struct MicrophoneCommandTests {
    static let enabled = SpeechTestData.isInstalled

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"),
      .enabled(if: enabled, "needs pocketsphinx-testdata"))
    func microphoneSpeechIsTranscribedWithDuration() async throws {
      let server = try VirtualMicrophone.start("cli-mic")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let speech = try SpeechTestData.goForwardWAV(in: directory.url, effects: ["pad", "0.5", "1"])
      let process = TranscribeProcess(["--duration", "6"], environment: server.environment)
      try process.start()
      #expect(try await server.waitForRecording(), "transcribe never started recording")
      try server.play(speech)
      let output = await process.wait(timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "go forward ten meters\n")
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"),
      .enabled(if: enabled, "needs pocketsphinx-testdata"))
    func listDevicesShowsTheVirtualMicrophoneAsDefault() async throws {
      let server = try VirtualMicrophone.start("cli-list")
      defer { server.stop() }
      let output = try await TranscribeProcess.run(
        ["--list-devices"], environment: server.environment)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout.contains("* virtual_mic"))
      #expect(output.stdout.contains("Virtual_Microphone"))
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"),
      .enabled(if: enabled, "needs pocketsphinx-testdata"))
    func unknownDeviceNamesListDevices() async throws {
      let server = try VirtualMicrophone.start("cli-device")
      defer { server.stop() }
      let output = try await TranscribeProcess.run(
        ["--device", "no_such_source", "--duration", "2"], environment: server.environment)
      #expect(output.status == 3)
      #expect(output.stderr.contains("--list-devices"))
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"),
      .enabled(if: enabled, "needs pocketsphinx-testdata"))
    func serverDyingMidStreamIsReportedAndTheWordsSoFarKept() async throws {
      let server = try VirtualMicrophone.start("cli-kill")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let speech = try SpeechTestData.goForwardWAV(
        in: directory.url, effects: ["pad", "0.5", "1.5"])
      let process = TranscribeProcess([], environment: server.environment)
      try process.start()
      #expect(try await server.waitForRecording(), "transcribe never started recording")
      try server.play(speech)
      let pid = try #require(server.pid)
      kill(pid, SIGKILL)
      let output = await process.wait(timeout: 20)
      #expect(output.reason == .exit)
      #expect(output.status == 4, "stderr: \(output.stderr)")
      #expect(output.stdout == "go forward ten meters\n")
      #expect(output.stderr.contains("stopped delivering audio"))
      #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func noServerAtAllIsReportedQuickly() async throws {
      let start = ContinuousClock.now
      let output = try await TranscribeProcess.run(
        ["--duration", "5"],
        environment: ["PULSE_SERVER": "unix:/tmp/no-such-pulse-\(getpid())/native"],
        timeout: 10)
      let elapsed = ContinuousClock.now - start
      #expect(output.status == 2)
      #expect(output.stderr.contains("cannot reach a PulseAudio server"))
      #expect(output.stderr.contains("--input"))
      #expect(output.stderr.contains("--preview"))
      // The design's promise is an answer within 2 s; this is a hang check, not a benchmark.
      #expect(elapsed < .seconds(2))
    }
  }
}
