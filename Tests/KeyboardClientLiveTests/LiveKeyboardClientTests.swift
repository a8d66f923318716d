import Foundation
import KeyboardClient
import Testing

@testable import KeyboardClientLive

struct LiveKeyboardClientTests {
  /// This process's environment without a display server or a ydotool daemon, with `changes`.
  static func environment(_ changes: [String: String?]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["DISPLAY"] = nil
    environment["WAYLAND_DISPLAY"] = nil
    environment["YDOTOOL_SOCKET"] = "/nonexistent/ydotool_socket"
    for (name, value) in changes { environment[name] = value }
    return environment
  }

  @Test func aMissingToolNamesItsPackage() {
    let environment = Self.environment(["PATH": "/nonexistent", "WAYLAND_DISPLAY": "wayland-0"])
    #expect(throws: KeyboardClientFailure.typerMissing(tool: "wtype", package: "wtype")) {
      try KeyboardClient.live(.wtype, environment: environment)
    }
    #expect(throws: KeyboardClientFailure.typerMissing(tool: "xdotool", package: "xdotool")) {
      try KeyboardClient.live(
        .xdotool, environment: Self.environment(["PATH": "/nonexistent", "DISPLAY": ":0"]))
    }
    #expect(throws: KeyboardClientFailure.typerMissing(tool: "ydotool", package: "ydotool")) {
      try KeyboardClient.live(.ydotool, environment: environment)
    }
    // auto on a Wayland session with nothing installed: what to install for that session.
    #expect(throws: KeyboardClientFailure.typerMissing(tool: "wtype", package: "wtype")) {
      try KeyboardClient.resolve(.auto, environment: environment)
    }
    #expect(
      KeyboardClientFailure.typerMissing(tool: "wtype", package: "wtype").message
        == "wtype is not installed: apt install wtype, or choose another --typer")
  }

  @Test(.disabled(if: YdotoolTyper.daemonAnswers(environment: [:]), "ydotoold runs here"))
  func autoWithoutAnyDisplayIsNoDisplay() {
    #expect(throws: KeyboardClientFailure.noDisplay) {
      try KeyboardClient.resolve(.auto, environment: Self.environment([:]))
    }
  }

  @Test func stdoutNeedsNothing() throws {
    let choice = try KeyboardClient.resolve(
      .stdout, environment: Self.environment(["PATH": "/nonexistent"]))
    #expect(choice == TyperChoice(typer: .stdout))
    #expect(choice.description == "standard output")
  }

  @Test func everyTyperIsAnOptionValue() {
    #expect(Typer.allCases.map(\.rawValue) == ["auto", "wtype", "xdotool", "ydotool", "stdout"])
    #expect(Typer(rawValue: "xdotool") == .xdotool)
  }

  /// What xdotool printed here against an Xvfb that wants a cookie it was not given.
  @Test func anXServerThatRefusesIsRefused() {
    let output = ToolOutput(
      status: 1, signaled: false, standardOutput: "",
      standardError: """
        Authorization required, but no authorization protocol specified

        Error: Can't open display: (null)
        Failed creating new xdo instance
        """)
    let failure = XdotoolTyper.failure(output, tool: "xdotool", display: ":94")
    guard case .refused("xdotool", let reason) = failure else {
      Issue.record("expected a refusal, got \(failure)")
      return
    }
    #expect(reason.contains(":94") && reason.contains("xhost +SI:localuser"))
  }

  @Test func aChosenTyperThatIsGoneFailsWhenTyping() async {
    let keyboard = KeyboardClient.live(
      TyperChoice(typer: .wtype), environment: Self.environment(["PATH": "/nonexistent"]))
    await #expect(throws: KeyboardClientFailure.typerMissing(tool: "wtype", package: "wtype")) {
      try await keyboard.type("hello")
    }
    await keyboard.finish()
  }
}
