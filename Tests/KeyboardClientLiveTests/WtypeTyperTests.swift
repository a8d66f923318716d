import Foundation
import KeyboardClient
import LiveTestSupport
import Testing

@testable import KeyboardClientLive

extension LiveTyping {
  /// wtype typing into a foot window on a private headless sway (`scripts/typing-targets.sh
  /// wayland`; as root, sway runs as the system user `transcribe-typist`, since it refuses root).
  @Suite(.enabled(if: TypingTarget.waylandRuns, "needs sway, foot and wtype"))
  struct WtypeTyperTests {
    /// Each utterance is a new wtype process with a new keymap: the first character after the
    /// upload must not be lost, however often it happens.
    @Test func typesEveryUtteranceWhole() async throws {
      let target = try TypingTarget.start(.wayland)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.wtype, environment: target.environment)
      var expected = ""
      for round in 1...12 {
        let word = round.isMultiple(of: 2) ? "Grüße" : "naïve"
        try await keyboard.type("\(word) \(round) café — ’€ ß\n")
        try await keyboard.erase(2)
        try await keyboard.type("-x")
        expected += "\(word) \(round) café — ’€ ß\r\u{7f}\u{7f}-x"
        let received = await target.waitForTyped(expected)
        #expect(received == expected)
      }
    }

    /// wtype 0.4 waits 2 ms after every key press and release (and a round trip to the
    /// compositor), so 300 characters take about 1.3 s: not "well under a second", and no option
    /// changes it.
    @Test func types300CharactersInAboutASecond() async throws {
      let target = try TypingTarget.start(.wayland)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.wtype, environment: target.environment)
      let sentence = "The quick brown fox jumps over the lazy dog, again and again. "
      let text = String(String(repeating: sentence, count: 5).prefix(300))
      let clock = ContinuousClock()
      let start = clock.now
      try await keyboard.type(text)
      let elapsed = clock.now - start
      let received = await target.waitForTyped(text)
      #expect(received == text)
      print("wtype typed 300 characters in \(elapsed)")
      #expect(elapsed < .seconds(4))
    }

    /// What is typed never shows in a process's command line (`ps`, `/proc/PID/cmdline`): while
    /// a text of two lines is typed, every wtype process seen has none of it in its arguments.
    @Test func theTextIsInNoCommandLine() async throws {
      let target = try TypingTarget.start(.wayland)
      defer { target.stop() }
      let keyboard = try KeyboardClient.live(.wtype, environment: target.environment)
      let secret = "Patient reports dizziness"
      let text = String(repeating: secret + " ", count: 6) + "\n" + secret
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
      #expect(lines.contains { $0.contains("wtype") && $0.contains(" -s ") }, "\(lines)")
      #expect(!lines.contains { $0.contains("Patient") || $0.contains("dizziness") }, "\(lines)")
    }

    @Test func autoPicksWtypeOnAVirtualKeyboardCompositor() async throws {
      let target = try TypingTarget.start(.wayland)
      defer { target.stop() }
      let choice = try KeyboardClient.resolve(.auto, environment: target.environment)
      #expect(choice == TyperChoice(typer: .wtype))
    }

    /// The real wtype against a compositor without the protocol (a stand-in, as GNOME and KDE):
    /// refused at start, naming what to use instead; auto has nothing else to try.
    @Test func aCompositorWithoutVirtualKeyboardIsRefused() throws {
      let compositor = try TypingTarget.start(.waylandWithoutVirtualKeyboard)
      defer { compositor.stop() }
      let refusal = #expect(throws: KeyboardClientFailure.self) {
        try KeyboardClient.live(.wtype, environment: compositor.environment)
      }
      guard let refusal, case .refused("wtype", let reason) = refusal else {
        Issue.record("expected wtype's refusal, got \(String(describing: refusal))")
        return
      }
      #expect(reason.contains("virtual-keyboard protocol"))
      #expect(reason.contains("ydotool"))
      #expect(throws: refusal) {
        try KeyboardClient.resolve(.auto, environment: compositor.environment)
      }
    }

    @Test func aDeadCompositorIsNoDisplay() throws {
      var environment = ProcessInfo.processInfo.environment
      environment["DISPLAY"] = nil
      environment["WAYLAND_DISPLAY"] = "/nonexistent/wayland-9"
      #expect(throws: KeyboardClientFailure.noDisplay) {
        try KeyboardClient.live(.wtype, environment: environment)
      }
    }
  }
}
