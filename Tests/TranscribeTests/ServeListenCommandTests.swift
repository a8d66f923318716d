import Foundation
import LiveTestSupport
import Testing

/// `transcribe serve` where it cannot listen: one line naming the fix, status 12; and an IPv6
/// address printed as a URL holds it.
extension CommandTests {
  @Suite struct ServeListenCommandTests {
    @Test func aPortInUseIsStatus12NamingTheFix() async throws {
      let first = try await ServeProcess(["--preview"])
      defer { first.kill() }
      let output = try await TranscribeProcess.run(
        ["serve", "--preview", "--port", String(first.port)], timeout: 60)
      #expect(output.status == 12, "stderr: \(output.stderr)")
      #expect(
        output.stderr.contains("127.0.0.1:\(first.port) is already in use"),
        "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--port"))
      #expect(!output.stderr.contains("errno"))
    }

    @Test func anUnknownHostIsStatus12NamingTheFix() async throws {
      let output = try await TranscribeProcess.run(
        ["serve", "--preview", "--port", "0", "--host", "no-such-host.invalid"], timeout: 60)
      #expect(output.status == 12, "stderr: \(output.stderr)")
      #expect(output.stderr.contains("--host"), "stderr: \(output.stderr)")
    }

    @Test func anIPv6HostIsPrintedInBrackets() async throws {
      let server = try await ServeProcess(["--preview", "--host", "::1"])
      let stderr = await server.stop()
      #expect(stderr.contains("listening on http://[::1]:\(server.port)"), "stderr: \(stderr)")
    }

    @Test func allowOriginLetsThatPageInAndNoOther() async throws {
      let server = try await ServeProcess([
        "--preview", "--allow-origin", "https://captions.example",
      ])
      defer { server.kill() }
      func status(origin: String) throws -> String {
        try runCommand(
          "/usr/bin/curl",
          [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Origin: \(origin)",
            server.baseURL + "/v1/models",
          ])
      }
      #expect(try status(origin: "https://captions.example") == "200")
      #expect(try status(origin: "http://127.0.0.1:\(server.port)") == "200")
      #expect(try status(origin: "http://evil.example") == "403")
    }

    @Test func helpListsTheStatus() async throws {
      let output = try await TranscribeProcess.run(["serve", "--help"], timeout: 30)
      // Help is wrapped to the terminal's width.
      let words = output.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      #expect(words.contains("12 when it cannot listen"))
    }
  }
}
