import Foundation
import LiveTestSupport
import SpeechClient
import Testing

/// Signals, output that cannot be written, and option values a hostile user would try: each
/// against the real binary.
extension CommandTests {
  @Suite struct SessionCommandTests {
    /// Files for a run of several inputs: `short` (2.8 s of speech), `long` (the same 40 times,
    /// about 110 s, which takes many seconds to decode) and `third`.
    struct Inputs {
      let directory: TemporaryDirectory
      let short: URL
      let long: URL
      let third: URL

      init() throws {
        directory = try TemporaryDirectory()
        let speech = try Data(contentsOf: SpeechTestData.goForward)
        short = directory.url.appendingPathComponent("short.raw")
        long = directory.url.appendingPathComponent("long.raw")
        third = directory.url.appendingPathComponent("third.raw")
        try speech.write(to: short)
        try speech.write(to: third)
        try Data(repeating: speech, count: 40).write(to: long)
      }
    }

    /// Starts `transcribe -i …`, sends `signal` once `long` has printed its header and a line,
    /// and returns the output and how long the process took to exit after the signal.
    func signalDuringLongFile(
      _ signal: Int32, files: [URL], long: URL
    ) async throws -> (TranscribeProcess.Output, Duration) {
      let process = TranscribeProcess(files.flatMap { ["-i", $0.path] })
      try process.start()
      let header = "==> \(long.path) <==\n"
      let started = await process.waitForOutput { output in
        guard let range = output.range(of: header) else { return false }
        return output[range.upperBound...].contains("\n")
      }
      #expect(started, "stdout: \(process.stdoutSoFar)")
      let sent = ContinuousClock.now
      kill(process.process.processIdentifier, signal)
      let output = await process.wait(timeout: 30)
      return (output, ContinuousClock.now - sent)
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func ctrlCDuringTheSecondFileStopsTheWholeRunAndExitsZero() async throws {
      let inputs = try Inputs()
      let (output, elapsed) = try await signalDuringLongFile(
        SIGINT, files: [inputs.short, inputs.long, inputs.third], long: inputs.long)
      #expect(output.reason == .exit)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout.contains("==> \(inputs.long.path) <==\ngo forward ten meters\n"))
      #expect(!output.stdout.contains(inputs.third.path))
      // Stopping a file is immediate; the 10 s stop deadline would mean it hung.
      #expect(elapsed < .seconds(8))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func sigtermDuringTheSecondFileStopsTheWholeRunAndExitsZero() async throws {
      let inputs = try Inputs()
      let (output, elapsed) = try await signalDuringLongFile(
        SIGTERM, files: [inputs.short, inputs.long, inputs.third], long: inputs.long)
      #expect(output.reason == .exit)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(!output.stdout.contains(inputs.third.path))
      #expect(elapsed < .seconds(8))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func sigtermDuringTheFirstFileStopsTheWholeRun() async throws {
      let inputs = try Inputs()
      let (output, _) = try await signalDuringLongFile(
        SIGTERM, files: [inputs.long, inputs.short], long: inputs.long)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout.hasPrefix("==> \(inputs.long.path) <==\ngo forward ten meters\n"))
      #expect(!output.stdout.contains(inputs.short.path))
    }

    @Test func sighupIsFlushedLikeSigterm() async throws {
      let process = TranscribeProcess(["--preview", "--format", "json"])
      try process.start()
      // Signalled once it has written its first words, so the signal handler is surely in place.
      #expect(await process.waitForOutput(timeout: 30) { $0.contains("lorem") })
      kill(process.process.processIdentifier, SIGHUP)
      let output = await process.wait(timeout: 15)
      #expect(output.reason == .exit)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let final = try #require(output.stdout.split(separator: "\n").last)
      #expect(final.contains(#""type":"final""#))
      #expect(final.contains(#""transcript":"lorem"#))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func durationCutsAFileByAudioTime() async throws {
      let inputs = try Inputs()
      let output = try await TranscribeProcess.run([
        "-i", inputs.long.path, "--duration", "6", "--format", "json",
      ])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stdout.split(separator: "\n")
      let final = try #require(lines.last)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(final.utf8)) as? [String: Any])
      let end = try #require(object["end"] as? Double)
      // Two utterances fit in the first 6 s of audio and the stop lands within a chunk of it;
      // cutting by clock time would decode many times more audio in 6 s.
      #expect(end <= 6.5)
      #expect(lines.filter { $0.contains(#""type":"utterance""#) }.count >= 2)
    }

    @Test func transcriptIntoAFullDiskIsOneErrorLineAndAStatus() async throws {
      let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
      let output = try await TranscribeProcess.run(
        ["--preview", "--duration", "4"], timeout: 30, standardOutput: full)
      #expect(output.status == 11)
      #expect(output.stderr.split(separator: "\n").count == 1)
      #expect(output.stderr.hasPrefix("transcribe: error: cannot write the transcript"))
    }

    @Test func closedStandardOutputIsOneErrorLineAndAStatus() async throws {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = [
        "-c", #"exec "$0" --preview --duration 1 >&-"#, TranscribeProcess.executable.path,
      ]
      let errors = Pipe()
      process.standardError = errors
      try process.run()
      process.waitUntilExit()
      let stderr = String(
        decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(process.terminationStatus == 11)
      #expect(stderr.split(separator: "\n").count == 1)
      #expect(stderr.contains("standard output is closed"))
    }

    @Test(arguments: ["inf", "1e300", "nan"])
    func durationBeyondAnyClockIsAUsageError(_ value: String) async throws {
      let output = try await TranscribeProcess.run(["--preview", "--duration", value])
      #expect(output.status == 64)
      #expect(output.stderr.contains("--duration must be"))
      #expect(output.reason == .exit)
    }

    @Test func negativeDurationSaysItMustBePositive() async throws {
      let output = try await TranscribeProcess.run(["--preview", "--duration", "-1"])
      #expect(output.status == 64)
      #expect(output.stderr.contains("--duration must be a positive number of seconds"))
    }

    @Test func emptyKeyphraseIsAUsageError() async throws {
      let output = try await TranscribeProcess.run(["--keyphrase", "", "--duration", "1"])
      #expect(output.status == 64)
      #expect(output.stderr.contains("--keyphrase needs a phrase"))
    }

    @Test func emptyDeviceIsAUsageError() async throws {
      let output = try await TranscribeProcess.run(["--device", "", "--duration", "1"])
      #expect(output.status == 64)
      #expect(output.stderr.contains("--device needs a capture source name"))
    }

    @Test func aTinyPreviewDurationNeverTimesOut() async throws {
      for _ in 0..<25 {
        let output = try await TranscribeProcess.run(
          ["--preview", "--duration", "1e-9"], timeout: 30)
        #expect(output.status == 0, "stderr: \(output.stderr)")
      }
    }

    @Test func previewListsItsDevice() async throws {
      let output = try await TranscribeProcess.run(["--preview", "--list-devices"])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "* lorem  Lorem ipsum (preview)\n")
    }

    @Test(arguments: ["srt", "vtt"])
    func subtitleCuesHaveAtMostTwoLinesOf42Characters(_ format: String) async throws {
      let output = try await TranscribeProcess.run(
        ["--preview", "--duration", "8", "--format", format], timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      var blocks = output.stdout.split(separator: "\n\n").map {
        $0.split(separator: "\n").map(String.init)
      }
      if format == "vtt" {
        #expect(blocks.first == ["WEBVTT"])
        blocks.removeFirst()
      }
      #expect(!blocks.isEmpty)
      for block in blocks {
        let timing = try #require(block.firstIndex { $0.contains(" --> ") })
        let text = block[(timing + 1)...]
        #expect(!text.isEmpty && text.count <= 2, "\(block)")
        #expect(text.allSatisfy { $0.count <= 42 }, "\(block)")
        let times = block[timing].split(separator: " --> ").map(Self.seconds)
        #expect(times[1] - times[0] <= 7)
      }
    }

    static func seconds(_ timestamp: Substring) -> Double {
      let parts = timestamp.split(whereSeparator: { ":,.".contains($0) }).compactMap {
        Double($0)
      }
      return parts[0] * 3600 + parts[1] * 60 + parts[2] + parts[3] / 1000
    }

    @Test func jsonTimesHaveAtMostThreeDecimals() async throws {
      let output = try await TranscribeProcess.run(
        ["--preview", "--duration", "4", "--format", "json"], timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(!output.stdout.isEmpty)
      #expect(output.stdout.firstMatch(of: /\d\.\d{4,}/) == nil, "\(output.stdout)")
    }
  }
}

extension Data {
  /// `data` repeated `count` times.
  fileprivate init(repeating data: Data, count: Int) {
    self.init(capacity: data.count * count)
    for _ in 0..<count { append(data) }
  }
}

extension CommandTests {
  @Suite struct SecondInterruptTests {
    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aCtrlCWhileStoppingExitsAtOnceWith130() async throws {
      let server = try VirtualMicrophone.start("cli-second-int")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let speech = try SpeechTestData.goForwardWAV(in: directory.url, effects: ["pad", "0.5", "1"])
      let process = TranscribeProcess([], environment: server.environment)
      try process.start()
      #expect(try await server.waitForRecording(), "transcribe never started recording")
      try server.play(speech)
      // Recording for sure once the first utterance is out.
      #expect(await process.waitForOutput(timeout: 20) { $0.contains("meters\n") })
      // A stopped server sends no more audio, so stopping has to wait for a poll to come back
      // empty.
      let pid = try #require(server.pid)
      kill(pid, SIGSTOP)
      defer { kill(pid, SIGCONT) }
      // SIGTERM stops recording; a Ctrl-C right behind it finds the session stopping. (Two
      // Ctrl-Cs this close would merge into one: the kernel keeps one pending signal per kind.)
      let sent = ContinuousClock.now
      kill(process.process.processIdentifier, SIGTERM)
      kill(process.process.processIdentifier, SIGINT)
      let output = await process.wait(timeout: 15)
      #expect(output.reason == .exit)
      #expect(output.status == 130, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("interrupted"))
      #expect(ContinuousClock.now - sent < .seconds(2))
    }
  }
}
