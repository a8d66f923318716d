import Foundation
import LiveTestSupport
import Testing

/// Uploads from clients that send `Expect: 100-continue` and wait for the server's answer
/// before sending the body (`scripts/expect_continue.py`, a raw socket client that waits as
/// long as it takes): an accepted upload gets `100 Continue` at once, a refused one its final
/// status, and never waits for a body the client holds back.
extension CommandTests {
  @Suite struct ServeExpectContinueTests {
    static let clip = SpeechTestData.directory.appendingPathComponent(
      "librivox/sense_and_sensibility_01_austen_64kb-0870.wav")

    /// The script's answer lines for an upload of `clip`.
    static func upload(
      to server: ServeProcess, _ arguments: [String] = []
    ) async throws -> [String] {
      let result = try await PythonClient.run(
        "expect_continue.py",
        ["127.0.0.1", String(server.port), clip.path, "--wait", "20"] + arguments, timeout: 60)
      #expect(result.status == 0, "\(result.stderr)")
      return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func anAcceptedUploadGets100ContinueThenItsTranscript() async throws {
      let server = try await ServeProcess(["--preview"])
      defer { server.kill() }
      let lines = try await Self.upload(to: server)
      #expect(lines.count == 2, "\(lines)")
      #expect(lines.first?.hasPrefix("interim 100") == true, "\(lines)")
      #expect(lines.last?.hasPrefix(#"final 200 {"text":"lorem"#) == true, "\(lines)")
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func aRefusedUploadGetsItsFinalStatusWithout100Continue() async throws {
      let server = try await ServeProcess([
        "--preview", "--token", "sekrit", "--max-upload-mb", "1",
      ])
      defer { server.kill() }
      let noToken = try await Self.upload(to: server)
      #expect(noToken.count == 1 && noToken[0].hasPrefix("final 401 "), "\(noToken)")
      #expect(noToken.first?.contains("invalid_api_key") == true)
      let tooLarge = try await Self.upload(
        to: server, ["--token", "sekrit", "--content-length", String(2 << 20)])
      #expect(tooLarge.count == 1 && tooLarge[0].hasPrefix("final 413 "), "\(tooLarge)")
      #expect(tooLarge.first?.contains("1 MiB") == true)
      let accepted = try await Self.upload(to: server, ["--token", "sekrit"])
      #expect(accepted.first?.hasPrefix("interim 100") == true, "\(accepted)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func withNoPlaceFreeTheUploadGets503AtOnce() async throws {
      let server = try await ServeProcess(["--preview", "--max-sessions", "1"])
      defer { server.kill() }
      // A stream at real-time pace holds the only place.
      let stream = try PythonProcess(
        "vosk_client.py", [server.webSocketURL, SpeechTestData.goForward.path, "--realtime"])
      #expect(await stream.waitForLines(1))
      let busy = try await Self.upload(to: server)
      #expect(busy.count == 1 && busy[0].hasPrefix("final 503 "), "\(busy)")
      _ = await stream.wait()
    }
  }
}
