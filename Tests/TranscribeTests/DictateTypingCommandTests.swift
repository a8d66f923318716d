import Foundation
import LiveTestSupport
import Testing

/// `transcribe dictate` typing real speech into a real window: the virtual microphone plays
/// pocketsphinx-testdata's speech, and an xterm under Xvfb records what xdotool types into it.
extension CommandTests {
  @Suite(
    .enabled(
      if: MoonshineTestData.testsRun && SpeechTestData.isInstalled && TypingTarget.x11Runs,
      "needs Moonshine, Silero VAD, Xvfb, xterm and xdotool (./scripts/install-dependencies.sh)"))
  struct DictateTypingCommandTests {
    /// Starts `transcribe dictate --typer xdotool` on `target`'s display, listening to
    /// `microphone`, with its control socket in `runtime`.
    static func dictate(
      _ arguments: [String], target: TypingTarget, microphone: VirtualMicrophone,
      runtime: TemporaryDirectory
    ) throws -> TranscribeProcess {
      var environment = target.environment.merging(microphone.environment) { $1 }
      environment["XDG_RUNTIME_DIR"] = runtime.url.path
      let process = TranscribeProcess(
        ["dictate", "--engine", "moonshine", "--typer", "xdotool"] + arguments,
        environment: environment)
      try process.start()
      return process
    }

    /// Runs `transcribe dictate` with a control option against the dictation in `runtime`.
    static func control(
      _ option: String, runtime: TemporaryDirectory
    ) async throws -> TranscribeProcess.Output {
      try await TranscribeProcess.run(
        ["dictate", option], environment: ["XDG_RUNTIME_DIR": runtime.url.path], timeout: 20)
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"))
    func spokenSentencesArriveInTheFocusedWindow() async throws {
      let microphone = try VirtualMicrophone.start("dictate-x11")
      defer { microphone.stop() }
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let runtime = try TemporaryDirectory()
      let directory = try TemporaryDirectory()
      let recording = try EndpointingCommandTests.recording(in: directory.url, pause: 1.2)
      let duration = Double(try NoisySpeech.samples(of: recording.url).count) / 16_000
      let process = try Self.dictate(
        ["--duration", "\(Int(duration) + 4)"], target: target, microphone: microphone,
        runtime: runtime)
      #expect(try await microphone.waitForRecording(), "dictate never started recording")
      try microphone.play(recording.url)
      let output = await process.wait(timeout: duration + 40)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let typed = DictateSpeechCommandTests.applyingBackspaces(await target.settled())
      // The window holds what standard output says was typed.
      let written = DictateSpeechCommandTests.applyingBackspaces(output.stdout)
      #expect(typed + "\n" == written, "window: \(typed)\nstdout: \(written)")
      #expect(typed.hasPrefix("And Mr. John Dashwood"), "\(typed)")
      let rate = EndpointingCommandTests.errorRate(typed, recording.references)
      #expect(rate <= 0.03, "WER \(rate): \(typed)")
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"))
    func pausedItTypesNothingAndTheToggleBringsItBack() async throws {
      let microphone = try VirtualMicrophone.start("dictate-x11-toggle")
      defer { microphone.stop() }
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let runtime = try TemporaryDirectory()
      let directory = try TemporaryDirectory()
      let command = directory.url.appendingPathComponent("goforward.wav")
      _ = try runSox([
        "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
        "/usr/share/pocketsphinx/test/data/goforward.raw", command.path, "pad", "0", "1",
      ])
      let process = try Self.dictate(
        ["--start-paused"], target: target, microphone: microphone, runtime: runtime)
      defer { if process.process.isRunning { process.process.terminate() } }
      // Paused from the start: the microphone is not even open, and speech is not typed.
      let socket = runtime.url.appendingPathComponent("transcribe-dictate.sock").path
      let deadline = Date().addingTimeInterval(30)
      while !FileManager.default.fileExists(atPath: socket), Date() < deadline {
        try await Task.sleep(for: .milliseconds(50))
      }
      try microphone.play(command)
      #expect(await target.settled(quiet: .seconds(2)).isEmpty, "typed while paused")

      #expect(try await Self.control("--toggle", runtime: runtime).stdout == "listening\n")
      #expect(try await microphone.waitForRecording(), "the toggle did not start recording")
      try microphone.play(command)
      let typed = await target.waitForTyped("Go forward ten meters.", timeout: .seconds(30))
      #expect(
        WordErrorRate.normalized(typed) == ["go", "forward", "10", "meters"]
          || WordErrorRate.normalized(typed) == ["go", "forward", "ten", "meters"], "\(typed)")

      // Toggled again: paused, the same command is not typed.
      #expect(try await Self.control("--toggle", runtime: runtime).stdout == "paused\n")
      // The microphone is released.
      let released = Date().addingTimeInterval(15)
      var recording = true
      while recording, Date() < released {
        let outputs = try runCommand(
          "/usr/bin/env", ["pactl", "list", "short", "source-outputs"],
          environment: microphone.environment)
        recording = outputs.split(separator: "\n").contains {
          let columns = $0.split(separator: "\t")
          return columns.count > 2 && columns[2] != "-"
        }
        try await Task.sleep(for: .milliseconds(100))
      }
      #expect(!recording, "the microphone is still open while paused")
      let before = target.received()
      try microphone.play(command)
      #expect(await target.settled(quiet: .seconds(2)) == before, "typed while paused")

      #expect(try await Self.control("--stop", runtime: runtime).status == 0)
      let output = await process.wait(timeout: 20)
      #expect(output.status == 0, "stderr: \(output.stderr)")
    }

    @Test func typeTextTypesOutsideTheLayoutWithTheUSAndGermanMaps() async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let runtime = try TemporaryDirectory()
      var environment = target.environment
      environment["XDG_RUNTIME_DIR"] = runtime.url.path
      let text = "naïve café — Grüße ’€ ß, yz"
      var expected = ""
      for map in ["us", "de"] {
        try target.run("setxkbmap", [map])
        let output = try await TranscribeProcess.run(
          ["dictate", "--type-text", text + "\n"], environment: environment, timeout: 30)
        #expect(output.status == 0, "\(map): \(output.stderr)")
        expected += text + "\r"
        #expect(await target.waitForTyped(expected) == expected, "\(map)")
      }
    }
  }

  /// Whatever ends `transcribe dictate --typer xdotool`, the X keymap is what it was before:
  /// the keycodes xdotool bound for characters outside the map are given back.
  @Suite(
    .enabled(
      if: TypingTarget.x11Runs, "needs Xvfb, xterm and xdotool (./scripts/install-dependencies.sh)"
    ))
  struct DictateKeymapCommandTests {
    /// How a dictation ends.
    enum Ending: String, CaseIterable, CustomTestStringConvertible, Sendable {
      case ctrlC, ctrlCTwice, sigterm, sighup, typerDies
      var testDescription: String { rawValue }
    }

    /// The X keymap (`xmodmap -pke`).
    static func keymap(_ target: TypingTarget) throws -> String {
      try target.run("xmodmap", ["-pke"])
    }

    @Test(arguments: Ending.allCases)
    func theKeymapIsRestored(ending: Ending) async throws {
      let target = try TypingTarget.start(.x11)
      defer { target.stop() }
      let runtime = try TemporaryDirectory()
      // The map loses "e" and "o": typing lorem ipsum then needs keycodes bound to them.
      for letter in ["e", "o"] {
        let line = try Self.keymap(target).split(separator: "\n").first {
          $0.split(separator: " ").dropFirst(3).first == Substring(letter)
        }
        let keycode = try #require(line?.split(separator: " ").dropFirst().first)
        try target.run("xmodmap", ["-e", "keycode \(keycode) ="])
      }
      let before = try Self.keymap(target)
      var environment = target.environment
      environment["XDG_RUNTIME_DIR"] = runtime.url.path
      // A second Ctrl-C must come while the first one's stop still types (standard signals
      // that arrive together merge into one), so there xdotool waits a second before each run
      // and typing lags behind; for a typer that dies, the xdotool that types dies by a signal
      // each time.
      let wrapper: String? =
        switch ending {
        case .ctrlCTwice: "sleep 1"
        case .typerDies: #"if [ "$1" = type ]; then "$REAL" "$@"; kill -KILL $$; fi"#
        default: nil
        }
      if let wrapper {
        let bin = runtime.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let real = try #require(
          (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/xdotool" }
            .first { FileManager.default.isExecutableFile(atPath: $0) })
        let script = bin.appendingPathComponent("xdotool")
        try "#!/bin/sh\nREAL='\(real)'\n\(wrapper)\nexec \"$REAL\" \"$@\"\n"
          .write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
      }
      let process = TranscribeProcess(
        ["dictate", "--preview", "--typer", "xdotool"], environment: environment)
      try process.start()
      defer { if process.process.isRunning { process.process.terminate() } }
      // Typing has bound keycodes.
      let deadline = Date().addingTimeInterval(40)
      while try Self.keymap(target) == before, process.process.isRunning, Date() < deadline {
        try await Task.sleep(for: .milliseconds(100))
      }
      #expect(try Self.keymap(target) != before, "no keycode was bound: \(process.stderrSoFar)")
      let pid = process.process.processIdentifier
      switch ending {
      case .ctrlC: kill(pid, SIGINT)
      case .ctrlCTwice:
        kill(pid, SIGINT)
        try await Task.sleep(for: .milliseconds(300))
        kill(pid, SIGINT)
      case .sigterm, .typerDies: kill(pid, SIGTERM)
      case .sighup: kill(pid, SIGHUP)
      }
      let output = await process.wait(timeout: 60)
      #expect(output.reason == .exit, "\(output)")
      #expect(output.status == (ending == .ctrlCTwice ? 130 : 0), "\(output.stderr)")
      if ending == .typerDies {
        #expect(output.stderr.contains("warning"), "the typer did not fail: \(output.stderr)")
      }
      let after = try Self.keymap(target)
      #expect(after == before, "the keymap was left changed")
    }
  }

  /// `transcribe dictate` on Wayland: a headless sway with a foot window, typed into by wtype.
  @Suite(
    .enabled(
      if: TypingTarget.waylandRuns,
      "needs sway, foot and wtype (./scripts/install-dependencies.sh)"))
  struct DictateWaylandCommandTests {
    @Test func typeTextReachesAFootWindowThroughWtype() async throws {
      let target = try TypingTarget.start(.wayland)
      defer { target.stop() }
      let runtime = try TemporaryDirectory()
      var environment = target.environment
      environment["XDG_RUNTIME_DIR"] = runtime.url.path
      let text = "Grüße — naïve café ’€"
      let output = try await TranscribeProcess.run(
        ["dictate", "--type-text", text + "\n"], environment: environment, timeout: 30)
      #expect(output.status == 0, "\(output.stderr)")
      #expect(await target.waitForTyped(text + "\r") == text + "\r")
      // With no typer named, auto chooses wtype here, and says so on a preview's status line.
      let preview = try await TranscribeProcess.run(
        ["dictate", "--preview", "--typer", "auto", "--duration", "1"],
        environment: environment, timeout: 30)
      #expect(preview.status == 0, "\(preview.stderr)")
    }
  }
}
