import Foundation

/// A headless window that records what is typed into it: an xterm on a private Xvfb, or a foot
/// window on a private headless sway, run by the repository's `scripts/typing-targets.sh`.
///
/// ```swift
/// let target = try TypingTarget.start(.x11)
/// defer { target.stop() }
/// let keyboard = try KeyboardClient.live(.xdotool, environment: target.environment)
/// try await keyboard.type("hello\n")
/// #expect(try await target.waitForTyped("hello\r") == "hello\r")
/// ```
public final class TypingTarget: Sendable {
  /// Which display server.
  public enum Kind: String, Sendable {
    /// Xvfb and a focused xterm.
    case x11
    /// Headless sway and a focused foot window.
    case wayland
    /// A stand-in Wayland compositor without the virtual-keyboard protocol, and no window.
    case waylandWithoutVirtualKeyboard = "no-virtual-keyboard"
  }

  /// The state directory the script keeps its pids and logs in.
  public let directory: URL
  /// The display's variables: `DISPLAY=:N`, or `WAYLAND_DISPLAY` (an absolute socket path).
  public let display: [String: String]
  /// The file the window writes every byte it receives into.
  public let typed: URL

  /// This process's environment without any display, plus this target's.
  public var environment: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for name in ["DISPLAY", "WAYLAND_DISPLAY", "YDOTOOL_SOCKET"] {
      environment[name] = nil
    }
    return environment.merging(display) { $1 }
  }

  /// The script: `$TYPING_TARGETS_SCRIPT`, or the package's own copy.
  public static let script: URL = {
    if let path = ProcessInfo.processInfo.environment["TYPING_TARGETS_SCRIPT"] {
      return URL(fileURLWithPath: path)
    }
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("scripts/typing-targets.sh")
  }()

  /// Whether the typing tests must run: on CI (`CI` set) a missing tool is a failure, not a
  /// reason to skip.
  public static var isRequired: Bool {
    ProcessInfo.processInfo.environment["CI"] != nil
  }

  /// Whether every tool in `tools` is on `PATH`.
  public static func installed(_ tools: String...) -> Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return tools.allSatisfy { tool in
      path.split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
      }
    }
  }

  /// Whether the X11 typing tests run: Xvfb, xterm, xdotool, xmodmap and setxkbmap are
  /// installed, or `CI` is set.
  public static var x11Runs: Bool {
    isRequired || installed("Xvfb", "xterm", "xdotool", "xmodmap", "setxkbmap")
  }

  /// Whether the Wayland typing tests run: sway, foot, swaymsg, wtype and python3 are installed
  /// (and, as root, runuser and useradd to run sway as another user), or `CI` is set.
  public static var waylandRuns: Bool {
    isRequired || installed("sway", "swaymsg", "foot", "wtype", "python3")
  }

  private init(directory: URL, display: [String: String], typed: URL) {
    self.directory = directory
    self.display = display
    self.typed = typed
  }

  /// Starts a display server with a focused window recording into ``typed``.
  public static func start(_ kind: Kind) throws -> TypingTarget {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("transcribe-typing-\(getpid())-\(UUID().uuidString.prefix(8))")
    // Searchable by all: as root, sway runs as another user below it.
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o755])
    let output: String
    do {
      output = try runCommand(
        "/bin/bash", [script.path, kind.rawValue, directory.path, "\(getpid())"])
    } catch {
      _ = try? runCommand("/bin/bash", [script.path, "stop", directory.path])
      try? FileManager.default.removeItem(at: directory)
      throw error
    }
    var values: [String: String] = [:]
    for line in output.split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
      if parts.count == 2 { values[parts[0]] = parts[1] }
    }
    let typed = URL(fileURLWithPath: values.removeValue(forKey: "TYPED") ?? "")
    return TypingTarget(directory: directory, display: values, typed: typed)
  }

  /// Opens a second recording window (X11), which takes the focus; returns its file.
  public func openSecondWindow() throws -> URL {
    let output = try runCommand("/bin/bash", [Self.script.path, "window", directory.path])
    let line = output.split(separator: "\n").first { $0.hasPrefix("TYPED=") } ?? ""
    return URL(fileURLWithPath: String(line.dropFirst("TYPED=".count)))
  }

  /// Closes the recording window (X11).
  public func killWindow() throws {
    try runCommand("/bin/bash", [Self.script.path, "kill-window", directory.path])
  }

  /// Runs a command against this display (`setxkbmap de`).
  @discardableResult
  public func run(_ tool: String, _ arguments: [String]) throws -> String {
    try runCommand("/usr/bin/env", [tool] + arguments, environment: display)
  }

  /// What the window received so far, as text.
  public func received(_ file: URL? = nil) -> String {
    let data = (try? Data(contentsOf: file ?? typed)) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  /// Waits until the window received at least `expected`'s length in bytes (or `timeout`
  /// passed) and returns what it received.
  public func waitForTyped(
    _ expected: String, in file: URL? = nil, timeout: Duration = .seconds(10)
  ) async -> String {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
      let received = self.received(file)
      if received.utf8.count >= expected.utf8.count { return received }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return received(file)
  }

  /// Waits until what was received stays the same for `quiet` (nothing more is coming), at most
  /// `timeout`; returns it.
  public func settled(
    in file: URL? = nil, quiet: Duration = .milliseconds(500), timeout: Duration = .seconds(10)
  ) async -> String {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var last = received(file)
    var since = clock.now
    while clock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
      let now = received(file)
      if now != last {
        last = now
        since = clock.now
      } else if clock.now - since >= quiet {
        break
      }
    }
    return last
  }

  /// Stops the display server and its windows, and removes the state directory.
  public func stop() {
    _ = try? runCommand("/bin/bash", [Self.script.path, "stop", directory.path])
    try? FileManager.default.removeItem(at: directory)
  }

  deinit {
    stop()
  }
}
