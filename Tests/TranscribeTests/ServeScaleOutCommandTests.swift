import Foundation
import LiveTestSupport
import Testing

/// Two `transcribe serve` instances behind nginx on loopback (scripts/scale_out.py): streams
/// spread over both, a stopped instance's clients get their words and a clean close, and new
/// streams go to the instance left.
extension CommandTests {
  @Suite struct ServeScaleOutCommandTests {
    /// Whether nginx is installed; with `CI` set its absence fails the test instead.
    static var hasNginx: Bool {
      let found = ["/usr/sbin/nginx", "/usr/bin/nginx"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
      }
      if !found {
        if VirtualMicrophone.isRequired {
          Issue.record("nginx is not installed: run scripts/install-dependencies.sh")
        } else {
          print("nginx is not installed; skipping (scripts/install-dependencies.sh)")
        }
      }
      return found
    }

    @Test func twoInstancesBehindNginxShareStreamsAndSurviveOneStopping() async throws {
      guard PythonClient.hasModule("websockets"), Self.hasNginx else { return }
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
