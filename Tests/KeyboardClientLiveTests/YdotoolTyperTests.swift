import Foundation
import KeyboardClient
import LiveTestSupport
import Testing

@testable import KeyboardClientLive

/// ydotool needs `/dev/uinput` (directly, or through ydotoold): not there in a container, so
/// what is tested for real is how it refuses.
@Suite(.enabled(if: TypingTarget.isRequired || TypingTarget.installed("ydotool"), "needs ydotool"))
struct YdotoolTyperTests {
  static let canReachUinput =
    YdotoolTyper.uinputWritable()
    || YdotoolTyper.daemonAnswers(environment: ProcessInfo.processInfo.environment)

  @Test(.disabled(if: canReachUinput, "this machine has /dev/uinput or ydotoold"))
  func refusesWithoutDaemonOrUinput() {
    #expect(
      throws: KeyboardClientFailure.refused(tool: "ydotool", reason: YdotoolTyper.unreachable)
    ) {
      try KeyboardClient.live(.ydotool)
    }
  }

  /// The real ydotool 0.1.8, past the check: it aborts with "failed to open uinput device".
  @Test(.disabled(if: canReachUinput, "this machine has /dev/uinput or ydotoold"))
  func theToolsOwnRefusalIsRefused() async throws {
    let runner = ToolRunner(environment: ProcessInfo.processInfo.environment)
    let ydotool = try #require(runner.executable("ydotool"))
    let typer = YdotoolTyper(runner: runner, ydotool: ydotool)
    await #expect(
      throws: KeyboardClientFailure.refused(tool: "ydotool", reason: YdotoolTyper.unreachable)
    ) {
      try await typer.type("hello")
    }
    await #expect(
      throws: KeyboardClientFailure.refused(tool: "ydotool", reason: YdotoolTyper.unreachable)
    ) {
      try await typer.erase(2)
    }
  }

  @Test func refusesTextOutsideASCIIBeforeTypingAnything() async throws {
    let runner = ToolRunner(environment: ProcessInfo.processInfo.environment)
    let ydotool = try #require(runner.executable("ydotool"))
    let typer = YdotoolTyper(runner: runner, ydotool: ydotool)
    await #expect(throws: KeyboardClientFailure.cannotType(tool: "ydotool", characters: "éü’")) {
      try await typer.type("café über’s, café")
    }
  }
}
