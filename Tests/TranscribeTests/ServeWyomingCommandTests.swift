import Foundation
import LiveTestSupport
import Testing

/// `transcribe serve --wyoming` as a process, with the PyPI `wyoming` package as the client
/// (scripts/wyoming_client.py): Home Assistant's sequence on real speech with both engines, a
/// streaming client, converted audio, endpointing, the hostile rows, a shutdown.
extension CommandTests {
  @Suite(
    .enabled(
      if: PythonClient.canImport("wyoming"),
      "needs python3 with wyoming (scripts/install-dependencies.sh)"),
    .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
  struct ServeWyomingCommandTests {
    /// `transcribe serve --no-http --wyoming tcp://127.0.0.1:0 arguments`, once it listens.
    final class WyomingServer {
      let process: TranscribeProcess
      /// The TCP listener's address, `tcp://127.0.0.1:PORT`.
      let uri: String

      convenience init(
        _ arguments: [String] = [], environment: [String: String] = [:]
      ) async throws {
        try await self.init(
          commandLine: ["serve", "--no-http", "--wyoming", "tcp://127.0.0.1:0"] + arguments,
          environment: environment)
      }

      /// `transcribe commandLine`, which must serve a Wyoming listener on TCP.
      init(
        commandLine: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
      ) async throws {
        process = TranscribeProcess(commandLine, environment: environment)
        try process.start()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, process.process.isRunning {
          if let uri = Self.uri(in: process.stderrSoFar) {
            self.uri = uri
            return
          }
          try await Task.sleep(for: .milliseconds(20))
        }
        let output = await process.wait(timeout: 1)
        throw ServeProcessError.didNotListen(stderr: output.stderr)
      }

      /// The address in `transcribe: wyoming listening on tcp://…` (a whole line).
      static func uri(in stderr: String) -> String? {
        stderr.split(separator: "\n").lazy.compactMap { line -> String? in
          let prefix = "transcribe: wyoming listening on "
          guard line.hasPrefix(prefix + "tcp://") else { return nil }
          return String(line.dropFirst(prefix.count))
        }.first
      }

      /// The `tcp://HOST:PORT` `process` prints once its Wyoming listener listens, waited for
      /// (it may come after the HTTP listener's line); `nil` if it does not come in `timeout`.
      static func uri(of process: TranscribeProcess, timeout: TimeInterval = 30) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
          if let uri = uri(in: process.stderrSoFar) { return uri }
          if !process.process.isRunning { break }
          try? await Task.sleep(for: .milliseconds(20))
        }
        return uri(in: process.stderrSoFar)
      }

      var pid: Int32 { process.process.processIdentifier }

      /// The port of ``uri``.
      var port: Int { Int(uri.split(separator: ":").last ?? "") ?? 0 }

      /// Waits until a line of standard error contains `text`; returns whether one did.
      func waitForStderr(_ text: String, timeout: TimeInterval = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, process.process.isRunning {
          if process.stderrSoFar.contains(text) { return true }
          try? await Task.sleep(for: .milliseconds(20))
        }
        return process.stderrSoFar.contains(text)
      }

      /// Stops the server with SIGTERM and waits for it.
      func terminate() async -> TranscribeProcess.Output {
        kill(pid, SIGTERM)
        return await process.wait(timeout: 30)
      }

      /// Open file descriptors and resident memory (KiB), from `/proc`.
      func resources() throws -> (fds: Int, rssKiB: Int) {
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
          .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
        return (fds, rss ?? 0)
      }
    }

    /// The events the client printed, each a JSON object.
    static func events(_ stdout: String) -> [[String: Any]] {
      stdout.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }

    static func types(_ events: [[String: Any]]) -> [String] {
      events.map { $0["type"] as? String ?? ($0["closed"] != nil ? "closed" : "?") }
    }

    static func transcript(_ events: [[String: Any]]) -> String? {
      events.first { $0["type"] as? String == "transcript" }
        .flatMap { ($0["data"] as? [String: Any])?["text"] as? String }
    }

    static let clip = SpeechTestData.directory
      .appendingPathComponent("librivox/sense_and_sensibility_01_austen_64kb-0930.wav")

    @Test func describeListsTheInstalledModelsOnEveryListener() async throws {
      let directory = try TemporaryDirectory()
      let socket = directory.url.appendingPathComponent("stt.sock").path
      let server = try await WyomingServer(["--wyoming", "unix://\(socket)"])
      let tcp = try await PythonClient.run("wyoming_client.py", [server.uri, "describe"])
      let unix = try await PythonClient.run("wyoming_client.py", ["unix://\(socket)", "describe"])
      let output = await server.terminate()
      #expect(tcp.status == 0, "\(tcp.stderr)")
      #expect(unix.stdout == tcp.stdout)
      let info = try #require(Self.events(tcp.stdout).first)
      #expect(info["type"] as? String == "info")
      let programs = (info["data"] as? [String: Any])?["asr"] as? [[String: Any]]
      let asr = try #require(programs?.first)
      let models = (asr["models"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
      // TranscribeProcess makes pocketsphinx the default; Moonshine follows when installed.
      #expect(models.first == "pocketsphinx-en-us")
      #expect(models.contains("moonshine-base-en") == MoonshineTestData.isInstalled)
      #expect(asr["supports_transcript_streaming"] as? Bool == true)
      #expect(asr["requires_external_vad"] as? Bool == false)
      #expect(!output.stderr.contains("listening on http"), "\(output.stderr)")
      #expect(output.status == 0, "\(output.stderr)")
      #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is left behind")
    }

    /// A second server on the same socket file is refused (status 12, one line) and the first
    /// goes on answering; the socket a killed server left behind is replaced.
    @Test func aLiveUnixSocketIsNeverReplacedAndAStaleOneIs() async throws {
      let directory = try TemporaryDirectory()
      let socket = directory.url.appendingPathComponent("stt.sock").path
      let first = try await WyomingServer(["--wyoming", "unix://\(socket)"])
      let second = try await TranscribeProcess.run(
        ["serve", "--no-http", "--wyoming", "unix://\(socket)"], timeout: 60)
      #expect(second.status == 12, "\(second.stderr)")
      #expect(second.stderr.contains("unix://\(socket) is already in use"), "\(second.stderr)")
      let describe = try await PythonClient.run(
        "wyoming_client.py", ["unix://\(socket)", "describe"])
      #expect(describe.status == 0, "the first server lost its socket: \(describe.stderr)")

      // Killed, it leaves its socket file; the next server replaces it.
      kill(first.pid, SIGKILL)
      _ = await first.process.wait(timeout: 30)
      #expect(FileManager.default.fileExists(atPath: socket))
      let third = try await WyomingServer(["--wyoming", "unix://\(socket)"])
      let again = try await PythonClient.run(
        "wyoming_client.py", ["unix://\(socket)", "describe"])
      #expect(again.status == 0, "\(again.stderr)")
      let output = await third.terminate()
      #expect(output.status == 0, "\(output.stderr)")
    }

    /// Home Assistant's sequence on `clip` with `engine` picked by name: the transcript is the
    /// first utterance `transcribe --input` hears (the server ends the command at a pause).
    func expectSequenceHearsWhatTheFileCommandHears(_ engine: String) async throws {
      let expected = try await TranscribeProcess.run(
        ["--input", Self.clip.path, "--engine", engine])
      #expect(expected.status == 0, "\(expected.stderr)")
      let server = try await WyomingServer()
      let client = try await PythonClient.run(
        "wyoming_client.py", [server.uri, "transcribe", Self.clip.path, "--name", engine])
      let output = await server.terminate()
      #expect(client.status == 0, "\(client.stderr)")
      let events = Self.events(client.stdout)
      #expect(
        Self.transcript(events)
          == expected.stdout.split(separator: "\n").first.map(String.init), "\(client.stdout)")
      #expect(Self.types(events).first == "transcript-start")
      #expect(Self.types(events).suffix(2) == ["transcript", "transcript-stop"])
      #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func homeAssistantsSequenceWithPocketsphinx() async throws {
      try await expectSequenceHearsWhatTheFileCommandHears("pocketsphinx")
    }

    @Test(.enabled(if: MoonshineTestData.testsRun, "needs Moonshine"))
    func homeAssistantsSequenceWithMoonshine() async throws {
      try await expectSequenceHearsWhatTheFileCommandHears("moonshine")
    }

    @Test(.enabled(if: MoonshineTestData.testsRun, "needs Moonshine"))
    func aStreamingClientGetsStartChunksTheTranscriptAndStopInOrder() async throws {
      let server = try await WyomingServer(["--engine", "moonshine"])
      let client = try await PythonClient.run(
        "wyoming_client.py", [server.uri, "transcribe", Self.clip.path, "--realtime"])
      _ = await server.terminate()
      let events = Self.events(client.stdout)
      let types = Self.types(events)
      #expect(types.first == "transcript-start", "\(client.stdout)")
      #expect(types.suffix(2) == ["transcript", "transcript-stop"], "\(client.stdout)")
      let chunks = events.filter { $0["type"] as? String == "transcript-chunk" }
        .compactMap { ($0["data"] as? [String: Any])?["text"] as? String }
      // Words stream while the audio still arrives, before the transcript. (How many depends
      // on how often two partials agree: Moonshine's partials of cut-off audio can loop, and
      // a chunk cannot be taken back, so the final transcript is the one to trust.)
      #expect(!chunks.isEmpty, "\(client.stdout)")
      // The first word streamed is the transcript's (give or take its punctuation).
      let first = { (text: String?) in
        text?.split(separator: " ").first?.lowercased().filter(\.isLetter)
      }
      #expect(first(chunks.joined()) == first(Self.transcript(events)), "\(client.stdout)")
    }

    @Test(.enabled(if: MoonshineTestData.testsRun, "needs Moonshine"))
    func audioAt44kHzStereoIsHeardLikeTheSameAudioAt16kHzMono() async throws {
      let directory = try TemporaryDirectory()
      let stereo = directory.url.appendingPathComponent("goforward-44k-stereo.wav")
      try runSox([
        "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
        SpeechTestData.goForward.path, "-r", "44100", "-c", "2", stereo.path,
      ])
      let server = try await WyomingServer(["--engine", "moonshine"])
      let mono = try await PythonClient.run(
        "wyoming_client.py", [server.uri, "transcribe", SpeechTestData.goForward.path])
      let converted = try await PythonClient.run(
        "wyoming_client.py", [server.uri, "transcribe", stereo.path])
      _ = await server.terminate()
      #expect(Self.transcript(Self.events(mono.stdout)) == "Go forward ten metres.")
      #expect(
        Self.transcript(Self.events(converted.stdout)) == "Go forward ten metres.",
        "\(converted.stdout)")
    }

    @Test(.enabled(if: MoonshineTestData.testsRun, "needs Moonshine"))
    func theServerEndsTheCommandAtAPauseWithoutAudioStop() async throws {
      let server = try await WyomingServer(["--engine", "moonshine"])
      // The speech, then silence at real-time pace until the transcript: never audio-stop.
      let client = try await PythonClient.run(
        "wyoming_client.py",
        [server.uri, "transcribe", SpeechTestData.goForward.path, "--no-stop"],
        timeout: 30)
      _ = await server.terminate()
      #expect(client.status == 0, "\(client.stderr)")
      let events = Self.events(client.stdout)
      #expect(Self.transcript(events) == "Go forward ten metres.", "\(client.stdout)")
      #expect(Self.types(events).last == "transcript-stop")
    }

    @Test func hostileClientsGetTheirErrorThenTheCloseAndLeaveNothingBehind() async throws {
      let server = try await WyomingServer()
      // One round first, so what the server allocates once is in place before measuring.
      _ = try await PythonClient.run("wyoming_client.py", [server.uri, "abuse", "1"])
      let before = try server.resources()
      let client = try await PythonClient.run(
        "wyoming_client.py", [server.uri, "abuse", "50"], timeout: 300)
      let after = try server.resources()
      let output = await server.terminate()
      #expect(client.status == 0, "\(client.stderr)")
      let rows = Self.events(client.stdout)
      #expect(rows.count == 9, "\(client.stdout)")
      for row in rows {
        let kind = try #require(row["kind"] as? String)
        let answers = row["answers"] as? [String] ?? []
        // Every one of the 50 got the error it earned, then the close.
        let expected =
          kind == "unexpected-event" ? "transcript-start \(kind) closed" : "\(kind) closed"
        #expect(answers == [expected], "\(kind): \(answers)")
      }
      #expect(after.fds <= before.fds + 2, "fds \(before.fds) → \(after.fds)")
      #expect(after.rssKiB <= before.rssKiB + 16_384, "RSS \(before.rssKiB) → \(after.rssKiB) KiB")
      #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func sigtermDeliversTheTranscriptSoFarThenTheErrorAndExitsZero() async throws {
      // A pause of 5 s ends nothing here: the utterance is still open at SIGTERM.
      let server = try await WyomingServer(["--silence", "5"])
      let client = try PythonProcess(
        "wyoming_client.py",
        [server.uri, "transcribe", Self.clip.path, "--realtime", "--no-stop", "--until-closed"])
      // Words have been heard: the first chunk.
      #expect(await client.waitForLines(2, timeout: 30))
      let output = await server.terminate()
      let result = await client.wait(timeout: 30)
      let events = Self.events(result.stdout)
      #expect(
        Self.types(events).suffix(4) == ["transcript", "transcript-stop", "error", "closed"],
        "\(result.stdout)")
      #expect(!(Self.transcript(events) ?? "").isEmpty, "\(result.stdout)")
      #expect(
        ((events.last { $0["type"] as? String == "error" }?["data"] as? [String: Any])?["code"]
          as? String) == "shutting-down")
      #expect(output.status == 0, "\(output.stderr)")
    }
  }

  /// `--zeroconf` when no Avahi daemon answers: one clear warning, and the server serves.
  /// (Announcing to a real daemon: ServeZeroconfAvahiTests.)
  @Suite(
    .enabled(
      if: PythonClient.canImport("wyoming"),
      "needs python3 with wyoming (scripts/install-dependencies.sh)"))
  struct ServeZeroconfCommandTests {
    @Test func withoutAnAvahiDaemonItWarnsInOneLineAndStillServes() async throws {
      let server = try await ServeWyomingCommandTests.WyomingServer(
        ["--preview", "--zeroconf"],
        environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
      #expect(await server.waitForStderr("zeroconf"))
      let client = try await PythonClient.run("wyoming_client.py", [server.uri, "describe"])
      let output = await server.terminate()
      let warnings = output.stderr.split(separator: "\n").filter { $0.contains("zeroconf") }
      #expect(warnings.count == 1, "\(output.stderr)")
      #expect(warnings.first?.hasPrefix("transcribe: warning: zeroconf: ") == true)
      #expect(warnings.first?.contains("add it by host and port") == true, "\(output.stderr)")
      #expect(client.stdout.contains("\"info\""), "\(client.stdout)")
      #expect(output.status == 0, "\(output.stderr)")
    }
  }

  @Suite struct ServeWyomingOptionTests {
    @Test(arguments: [
      (["--no-http"], "--no-http leaves nothing to serve"),
      (["--wyoming", "http://0.0.0.0:10300"], "is not a Wyoming address"),
      (["--wyoming", "tcp://0.0.0.0"], "names no port"),
      (["--wyoming", "tcp://0.0.0.0:99999"], "has no port from 0 to 65535"),
      (["--zeroconf"], "--zeroconf announces a TCP Wyoming listener"),
      (["--silence", "-1"], "--silence must be a number of seconds"),
    ])
    func badWyomingOptionsAreUsageErrorsNamingTheFix(
      _ arguments: [String], _ message: String
    )
      async throws
    {
      let output = try await TranscribeProcess.run(["serve", "--preview"] + arguments)
      #expect(output.status == 64, "\(output.stderr)")
      #expect(output.stderr.contains(message), "\(output.stderr)")
      #expect(output.stderr.split(separator: "\n").count <= 3, "\(output.stderr)")
    }

    /// The unit file in `packaging/`.
    static let unit = PythonClient.scripts.deletingLastPathComponent()
      .appendingPathComponent("packaging/transcribe-wyoming.service")

    @Test(
      .enabled(
        if: VirtualMicrophone.isRequired
          || FileManager.default.fileExists(atPath: "/usr/bin/systemd-analyze"),
        "needs systemd-analyze (the systemd package)"))
    func theSystemdUnitVerifiesAndItsCommandLineServes() async throws {
      let text = try String(contentsOf: Self.unit, encoding: .utf8)
      let directory = try TemporaryDirectory()
      // The unit as installed, with the binary where this build put it.
      let unit = directory.url.appendingPathComponent("transcribe-wyoming.service")
      try text.replacingOccurrences(
        of: "/usr/local/bin/transcribe", with: TranscribeProcess.executable.path
      ).write(to: unit, atomically: true, encoding: .utf8)
      let (status, complaints) = try systemdAnalyzeVerify(unit)
      #expect(status == 0, "\(complaints)")
      #expect(complaints.isEmpty, "\(complaints)")
      // Its command line serves (on a free loopback port rather than 10300, with the lorem
      // client).
      let execStart = try #require(
        text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
      let commandLine = execStart.split(separator: " ").dropFirst().map {
        $0 == "tcp://0.0.0.0:10300" ? "tcp://127.0.0.1:0" : String($0)
      }
      #expect(commandLine.contains("tcp://127.0.0.1:0"), "\(execStart)")
      let server = try await ServeWyomingCommandTests.WyomingServer(
        commandLine: commandLine + ["--preview"])
      let output = await server.terminate()
      #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func aWyomingPortInUseIsReportedAndExits12() async throws {
      let holder = try await ServeProcess(["--preview", "--wyoming", "tcp://127.0.0.1:0"])
      defer { holder.kill() }
      let port = try #require(
        await ServeWyomingCommandTests.WyomingServer.uri(of: holder.process))
      let output = try await TranscribeProcess.run(
        ["serve", "--preview", "--port", "0", "--wyoming", port])
      _ = await holder.terminate()
      #expect(output.status == 12, "\(output.stderr)")
      #expect(output.stderr.contains("is already in use"), "\(output.stderr)")
    }
  }
}
