import Foundation
import LiveTestSupport
import Testing

/// Two `transcribe serve` instances behind nginx on loopback (scripts/scale_out.py): streams
/// spread over both, a stopped instance's clients get their words and a clean close, and new
/// streams go to the instance left.
extension CommandTests {
  @Suite struct ServeScaleOutCommandTests {
    /// Whether the test can run nginx: it is installed, or `CI` is set (where its absence
    /// fails the test instead of skipping it).
    static var canRunNginx: Bool {
      VirtualMicrophone.isRequired
        || ["/usr/sbin/nginx", "/usr/bin/nginx"].contains {
          FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: Self.canRunNginx, "needs nginx (scripts/install-dependencies.sh)"))
    func twoInstancesBehindNginxShareStreamsAndSurviveOneStopping() async throws {
      let run = try await PythonClient.run(
        "scale_out.py", [TranscribeProcess.executable.path], timeout: 120)
      #expect(run.status == 0, "stdout:\n\(run.stdout)\nstderr:\n\(run.stderr)")
      for check in [
        "streams spread across both instances", "the stopped instance exited 0",
        "clean close, 1001 going away", "new sessions are accepted",
        "they run on the remaining instance", "remaining streams end normally",
      ] {
        let passed = run.stdout.split(separator: "\n").contains {
          $0.hasPrefix("ok: ") && $0.contains(check)
        }
        #expect(passed, "missing check: \(check)\n\(run.stdout)")
      }
    }
  }
}
