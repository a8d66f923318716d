import Foundation
import LiveTestSupport
import Testing

/// Hotwords through `transcribe serve`: Home Assistant's names from a local stand-in of its REST
/// API (scripts/hass_standin.py), and Wyoming's `transcript_names`, with Home Assistant's own
/// client library speaking espeak-ng's commands.
extension CommandTests {
  @Suite(
    .enabled(
      if: PythonClient.canImport("wyoming") && MoonshineTestData.testsRun
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng"),
      "needs python3 with wyoming, Moonshine and espeak-ng (scripts/install-dependencies.sh)"))
  struct ServeHotwordsCommandTests {
    typealias WyomingServer = ServeWyomingCommandTests.WyomingServer

    static let command = "Turn on the Kallax lamp in Siobhan's room."
    static let token = "stand-in-token"

    /// The command, spoken into a 16 kHz mono WAV in `directory`.
    static func spokenCommand(in directory: TemporaryDirectory) throws -> URL {
      let voice = directory.url.appendingPathComponent("voice.wav")
      let file = directory.url.appendingPathComponent("command.wav")
      try runCommand("/usr/bin/espeak-ng", ["-v", "en-us", "-s", "150", "-w", voice.path, command])
      try runSox([voice.path, "-r", "16000", "-c", "1", "-b", "16", file.path])
      return file
    }

    /// The stand-in, serving these names, once it listens; and its URL.
    static func standIn(in directory: TemporaryDirectory) async throws -> (PythonProcess, String) {
      let names = directory.url.appendingPathComponent("names.json")
      try #"""
      {"entities": {"light.kallax": "Kallax", "sensor.power": "Kallax power",
                    "switch.nanoleaf": "Nanoleaf"},
       "areas": ["Siobhan", "Kitchen"], "floors": ["Upstairs"]}
      """#.write(to: names, atomically: true, encoding: .utf8)
      let process = try PythonProcess("hass_standin.py", [token, names.path])
      #expect(await process.waitForLines(1, timeout: 30))
      let line = process.stdoutSoFar.split(separator: "\n").first.map(String.init) ?? ""
      return (process, line.replacingOccurrences(of: "listening on ", with: ""))
    }

    /// What the server's Wyoming listener transcribes of `file`.
    static func transcript(
      _ server: WyomingServer, _ file: URL, names: String? = nil
    )
      async throws -> String?
    {
      let client = try await PythonClient.run(
        "wyoming_client.py",
        [server.uri, "transcribe", file.path] + (names.map { ["--names", $0] } ?? []))
      #expect(client.status == 0, "\(client.stderr)")
      return ServeWyomingCommandTests.transcript(ServeWyomingCommandTests.events(client.stdout))
    }

    @Test func homeAssistantsNamesBiasEveryCommand() async throws {
      let directory = try TemporaryDirectory()
      let file = try Self.spokenCommand(in: directory)
      let (standIn, url) = try await Self.standIn(in: directory)
      defer { _ = standIn }
      let tokenFile = directory.url.appendingPathComponent("hass-token")
      try "\(Self.token)\n".write(to: tokenFile, atomically: true, encoding: .utf8)

      let plain = try await WyomingServer(["--engine", "moonshine"])
      let without = try await Self.transcript(plain, file)
      _ = await plain.terminate()
      #expect(without?.contains("Kallax") == false, "\(without ?? "")")

      let server = try await WyomingServer([
        "--engine", "moonshine", "--hass-url", url, "--hass-token-file", tokenFile.path,
      ])
      #expect(
        await server.waitForStderr("5 names of entities, areas and floors are hotwords"),
        "\(server.process.stderrSoFar)")
      let with = try await Self.transcript(server, file)
      let output = await server.terminate()
      _ = await standIn.wait(timeout: 0)
      #expect(with?.contains("Kallax") == true, "\(with ?? "")")
      #expect(with?.contains("Siobhan") == true, "\(with ?? "")")
      #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func anUnreachableHomeAssistantIsAWarningAndTheServerServes() async throws {
      let directory = try TemporaryDirectory()
      let file = try Self.spokenCommand(in: directory)
      let tokenFile = directory.url.appendingPathComponent("hass-token")
      try "\(Self.token)\n".write(to: tokenFile, atomically: true, encoding: .utf8)
      // Port 9 (discard) is closed on a test machine: connections are refused at once.
      let server = try await WyomingServer([
        "--engine", "moonshine", "--hass-url", "http://127.0.0.1:9",
        "--hass-token-file", tokenFile.path,
      ])
      #expect(
        await server.waitForStderr("home assistant: could not read names; keeping 0"),
        "\(server.process.stderrSoFar)")
      let heard = try await Self.transcript(server, file)
      let output = await server.terminate()
      #expect(heard?.hasPrefix("Turn on the") == true, "\(heard ?? "")")
      #expect(output.status == 0, "\(output.stderr)")
      #expect(output.stderr.contains("http://127.0.0.1:9/api/states cannot be reached"))
    }

    @Test func aServerWideListBiasesEveryStream() async throws {
      let directory = try TemporaryDirectory()
      let file = try Self.spokenCommand(in: directory)
      let server = try await WyomingServer(["--engine", "moonshine", "--hotwords", "Kallax"])
      let heard = try await Self.transcript(server, file)
      let output = await server.terminate()
      #expect(heard?.contains("Kallax") == true, "\(heard ?? "")")
      #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func anUploadsPromptAndAVoskPhraseListBiasTheirTranscripts() async throws {
      let directory = try TemporaryDirectory()
      let file = try Self.spokenCommand(in: directory)
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      let url = server.baseURL + "/v1/audio/transcriptions"
      func upload(_ fields: [String]) throws -> String {
        try runCommand(
          "/usr/bin/curl",
          ["-sS", "-F", "file=@\(file.path)", "-F", "response_format=text"]
            + fields.flatMap { ["-F", $0] } + [url])
      }
      let plain = try upload([])
      #expect(!plain.contains("Kallax"), "\(plain)")
      let prompted = try upload(["prompt=Our lamps: Kallax. Our rooms: Siobhan's room."])
      #expect(prompted.contains("Kallax"), "\(prompted)")
      // stream=true reads the same prompt.
      let streamed = try runCommand(
        "/usr/bin/curl",
        ["-sS", "-N", "-F", "file=@\(file.path)", "-F", "stream=true", "-F", "prompt=Kallax", url])
      #expect(streamed.contains("Kallax"), "\(streamed)")

      guard PythonClient.canImport("websockets") else { return }
      let vosk = try await PythonClient.run(
        "vosk_client.py",
        ["ws://127.0.0.1:\(server.port)/", file.path, "--phrases", "Kallax, Siobhan"])
      #expect(vosk.status == 0, "\(vosk.stderr)")
      #expect(vosk.stdout.contains("Kallax"), "\(vosk.stdout)")
      // It still hears the words that are not in the list (Moonshine, not a grammar).
      #expect(vosk.stdout.contains("lamp"), "\(vosk.stdout)")
    }

    @Test func wyomingTranscriptNamesBiasThatCommand() async throws {
      let directory = try TemporaryDirectory()
      let file = try Self.spokenCommand(in: directory)
      let server = try await WyomingServer(["--engine", "moonshine"])
      let with = try await Self.transcript(server, file, names: "Kallax,Siobhan")
      // The next command, without names, is heard plainly again.
      let without = try await Self.transcript(server, file)
      let output = await server.terminate()
      #expect(with?.contains("Kallax") == true, "\(with ?? "")")
      #expect(without?.contains("Kallax") == false, "\(without ?? "")")
      #expect(output.status == 0, "\(output.stderr)")
    }
  }
}
