import Foundation
import KeyboardClient
import LiveTestSupport
import Testing

@testable import KeyboardClientLive

extension LiveTyping {
  /// xdotool typing into an xterm on a private Xvfb (`scripts/typing-targets.sh x11`); the xterm
  /// runs `cat` in raw mode, so Return arrives as `\r` and BackSpace as `\x7f`.
  @Suite(
    .enabled(
      if: TypingTarget.x11Runs, "needs xvfb, xterm, xdotool, x11-xkb-utils, x11-xserver-utils"))
  struct XdotoolTyperTests {
    static let nonASCII = "naïve café — Grüße ’€ ß"

    @Test func typesASCIIReturnAndErase() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      try await keyboard.type("Hello, world! -x 123 (a+b=c) ~`\n")
      try await keyboard.erase(3)
      try await keyboard.type("ok")
      let expected = "Hello, world! -x 123 (a+b=c) ~`\r\u{7f}\u{7f}\u{7f}ok"
      let received = await target.waitForTyped(expected)
      #expect(received == expected)
      await keyboard.finish()
    }

    @Test func typesTextOutsideTheUSMap() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      try await keyboard.type(Self.nonASCII + " É\n")
      let expected = Self.nonASCII + " É\r"
      let received = await target.waitForTyped(expected)
      #expect(received == expected)
      await keyboard.finish()
    }

    /// The German map reaches é and ï only through dead keys and swaps y and z; `setxkbmap` in the
    /// middle of dictation also throws away the keycodes bound for the first text.
    @Test func typesTextOutsideTheGermanMapAfterTheMapChanged() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      try await keyboard.type("yz é€\n")
      let first = "yz é€\r"
      let typedFirst = await target.waitForTyped(first)
      #expect(typedFirst == first)

      try target.run("setxkbmap", ["de"])
      try await keyboard.type("yz " + Self.nonASCII + "\n")
      let expected = first + "yz " + Self.nonASCII + "\r"
      let received = await target.waitForTyped(expected)
      #expect(received == expected)
      await keyboard.finish()
    }

    /// Greek and Cyrillic letters: more distinct characters than the 19 free keycodes, so slots are
    /// rebound between runs of the text.
    @Test func typesMoreCharactersThanThereAreFreeKeycodes() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let free = try freeKeycodes(target).count
      let text = "αβγδεζηθικλμνξοπρστυφχψω АБВГДЕЖЗИЙКЛМНОП ünd wieder αω"
      #expect(Set(text.unicodeScalars.filter { !$0.isASCII }).count > free)
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      try await keyboard.type(text)
      let received = await target.waitForTyped(text)
      #expect(received == text)
      await keyboard.finish()
    }

    @Test func finishGivesBackTheKeycodesItBound() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let before = try freeKeycodes(target)
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      try await keyboard.type("é ß")
      let received = await target.waitForTyped("é ß")
      #expect(received == "é ß")
      #expect(try freeKeycodes(target).count == before.count - 2)
      await keyboard.finish()
      #expect(try freeKeycodes(target) == before)
    }

    @Test func types300CharactersInWellUnderASecond() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      let sentence = "The quick brown fox jumps over the lazy dog, again and again. "
      let text = String(String(repeating: sentence, count: 5).prefix(300))
      let clock = ContinuousClock()
      let start = clock.now
      try await keyboard.type(text)
      let elapsed = clock.now - start
      let received = await target.waitForTyped(text)
      #expect(received == text)
      print("xdotool typed 300 characters in \(elapsed)")
      // xdotool's default 12 ms per key takes about 2.2 s here; 1 ms about 0.5 s.
      #expect(elapsed < .seconds(2))
      await keyboard.finish()
    }

    /// What is typed never shows in a process's command line, which every local user can read
    /// (`ps`, `/proc/PID/cmdline`): while a long text is typed, every xdotool process seen has
    /// none of it in its arguments.
    @Test func theTextIsInNoCommandLine() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      let secret = "Patient reports dizziness"
      let text = String(repeating: secret + " ", count: 12) + "\n" + secret
      let seen = CommandLines()
      let watching = Task.detached {
        while !Task.isCancelled { seen.look() }
      }
      try await keyboard.type(text)
      watching.cancel()
      _ = await watching.value
      let expected = text.replacingOccurrences(of: "\n", with: "\r")
      #expect(await target.waitForTyped(expected) == expected)
      let lines = seen.lines
      #expect(lines.contains { $0.contains("xdotool") && $0.contains("type") }, "\(lines)")
      #expect(!lines.contains { $0.contains("Patient") || $0.contains("dizziness") }, "\(lines)")
      await keyboard.finish()
    }

    /// Texts typed at the same time arrive one after the other, never interleaved.
    @Test func textsTypedAtOnceDoNotInterleave() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      let (first, second) = (String(repeating: "a", count: 80), String(repeating: "é", count: 80))
      async let typingFirst: Void = keyboard.type(first)
      async let typingSecond: Void = keyboard.type(second)
      _ = try await (typingFirst, typingSecond)
      let received = await target.waitForTyped(first + second)
      #expect(received == first + second || received == second + first)
      await keyboard.finish()
    }

    @Test func aClosedWindowIsNoFocusedWindow() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
      try await keyboard.type("a")
      let received = await target.waitForTyped("a")
      #expect(received == "a")
      try target.killWindow()
      await #expect(throws: KeyboardClientFailure.noFocusedWindow) {
        try await keyboard.type("lost")
      }
      await #expect(throws: KeyboardClientFailure.noFocusedWindow) {
        try await keyboard.erase(1)
      }
      // A new window that takes the focus gets the text.
      let second = try target.openSecondWindow()
      try await keyboard.type("found")
      let inSecond = await target.waitForTyped("found", in: second)
      #expect(inSecond == "found")
    }

    /// A frozen X server (SIGSTOP) must not hang dictation: the call is killed at its deadline.
    @Test func aFrozenServerFailsAtTheDeadline() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      var runner = ToolRunner(environment: target.environment)
      runner.baseDeadline = .seconds(1)
      let keyboard = try LiveTyper.check(.xdotool, runner: runner).typer.client
      try await keyboard.type("a")
      let server = try String(
        contentsOf: target.directory.appendingPathComponent("xvfb.pid"), encoding: .utf8
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      try runCommand("/bin/kill", ["-STOP", server])
      defer { _ = try? runCommand("/bin/kill", ["-CONT", server]) }
      let clock = ContinuousClock()
      let start = clock.now
      await #expect {
        try await keyboard.type("frozen")
      } throws: { error in
        guard case .failed(let tool, let message) = error as? KeyboardClientFailure else {
          return false
        }
        return tool == "xdotool" && message.contains("did not finish")
      }
      #expect(clock.now - start < .seconds(5))
    }

    @Test func autoPicksXdotoolOnX11() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let choice = try KeyboardClient.resolve(.auto, environment: target.environment)
      #expect(choice == TyperChoice(typer: .xdotool))
      #expect("Typing with \(choice)" == "Typing with xdotool")
    }

    /// A Wayland session whose compositor offers no virtual-keyboard protocol (a stand-in
    /// compositor, as GNOME and KDE) but has XWayland: xdotool, for XWayland windows, and the
    /// choice says so.
    @Test func autoFallsBackToXdotoolForXWaylandWindows() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let compositor = try TypingTarget.start(.waylandWithoutVirtualKeyboard)
      defer { compositor.stop() }
      let environment = target.environment.merging(compositor.display) { $1 }
      let choice = try KeyboardClient.resolve(.auto, environment: environment)
      #expect(choice.typer == .xdotool)
      #expect(choice.note?.hasPrefix("XWayland windows only: wtype cannot type here") == true)
      let keyboard = KeyboardClient.live(choice, environment: environment)
      try await keyboard.type("via XWayland")
      let received = await target.waitForTyped("via XWayland")
      #expect(received == "via XWayland")
    }

    @Test func withoutDisplayItIsNoDisplay() throws {
      var environment = ProcessInfo.processInfo.environment
      environment["DISPLAY"] = nil
      environment["WAYLAND_DISPLAY"] = nil
      #expect(throws: KeyboardClientFailure.noDisplay) {
        try KeyboardClient.live(.xdotool, environment: environment)
      }
      environment["DISPLAY"] = ":4321"
      #expect(throws: KeyboardClientFailure.noDisplay) {
        try KeyboardClient.live(.xdotool, environment: environment)
      }
    }

    private func freeKeycodes(_ target: TypingTarget) throws -> [Int] {
      KeyboardMapping(xmodmapTable: try target.run("xmodmap", ["-pk"])).freeKeycodes
    }
  }
}

/// The command lines of every process seen while `look()` runs, read from `/proc`.
final class CommandLines: @unchecked Sendable {
  private let lock = NSLock()
  private var seen: Set<String> = []

  var lines: Set<String> { lock.withLock { seen } }

  /// Reads every process's `/proc/PID/cmdline` once (arguments joined with spaces).
  func look() {
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for pid in pids where pid.allSatisfy(\.isNumber) {
      guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty
      else { continue }
      let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
      _ = lock.withLock { seen.insert(line) }
    }
  }
}
