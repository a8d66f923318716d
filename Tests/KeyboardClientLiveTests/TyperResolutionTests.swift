import Foundation
import KeyboardClient
import Testing

@testable import KeyboardClientLive

struct TyperResolutionTests {
  /// This process's environment with no display server and an empty `PATH` directory.
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
}
