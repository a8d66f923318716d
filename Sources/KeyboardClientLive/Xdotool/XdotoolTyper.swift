import Foundation
import KeyboardClient

/// Types through `xdotool` into the window that has the X keyboard focus.
///
/// - Speed: `--delay 1` (ms between keys; xdotool's default 12 ms made 300 characters take 1.9–2.2
///   s here, 1 ms takes about 0.25 s).
/// - Characters outside the keyboard map (é with a US map; é and ï with a German one, where only
///   dead keys reach them) are bound to keycodes that carry nothing (`xmodmap -e "keycode N =
///   U00E9"`) before typing, kept while dictation runs, checked before each text (`setxkbmap`
///   resets them) and given back in `finish()`.
/// - Before each text, the focus is checked: focus on the root window (the focused window was
///   closed and nothing took its place) is ``KeyboardClientFailure/noFocusedWindow``.
actor XdotoolTyper {
  private let runner: ToolRunner
  private let xdotool: URL
  private let xmodmap: URL
  private let display: String
  /// The root windows (one per screen): focus there means no window has it. Found on first use.
  private var roots: Set<Int>?
  /// Keycodes this typer bound, and to what.
  private var bindings: [Int: UInt32] = [:]
  /// When the last keystrokes were sent.
  private var lastTyped: ContinuousClock.Instant?

  /// Milliseconds between keys.
  static let keyDelay = "1"

  /// How long to let the window catch up before rebinding keycodes a text has just used.
  static let rebindPause = Duration.milliseconds(200)

  /// A typer for the X server at `DISPLAY`, unchecked (see ``check(runner:)``).
  init(runner: ToolRunner, xdotool: URL, xmodmap: URL) {
    self.runner = runner
    self.xdotool = xdotool
    self.xmodmap = xmodmap
    self.display = runner.environment["DISPLAY"] ?? ""
  }

  /// Finds xdotool and xmodmap and connects to the X server once; throws what stops typing here.
  static func check(runner: ToolRunner) throws(KeyboardClientFailure) -> XdotoolTyper {
    guard let display = runner.environment["DISPLAY"], !display.isEmpty else {
      throw .noDisplay
    }
    guard let xdotool = runner.executable("xdotool") else {
      throw .typerMissing(tool: "xdotool", package: "xdotool")
    }
    guard let xmodmap = runner.executable("xmodmap") else {
      throw .typerMissing(tool: "xmodmap", package: "x11-xserver-utils")
    }
    let output = try runner.runBlocking(
      xdotool, rootSearch, timeout: runner.deadline(keys: 0))
    guard output.succeeded else { throw failure(output, tool: "xdotool", display: display) }
    return XdotoolTyper(runner: runner, xdotool: xdotool, xmodmap: xmodmap)
  }

  /// Lists the root windows: the windows at depth 0.
  private static let rootSearch = ["search", "--maxdepth", "0", "--name", ""]

  func type(_ text: String) async throws(KeyboardClientFailure) {
    let text = Self.typeable(text)
    guard !text.isEmpty else { return }
    // The keyboard map is read while the focus is checked: two tools at once, not one after
    // the other (a failed check cancels the read, and is the error).
    async let keyboard: Result<KeyboardMapping, KeyboardClientFailure> = {
      do throws(KeyboardClientFailure) {
        return .success(try await mapping())
      } catch {
        return .failure(error)
      }
    }()
    try await checkFocus()
    let plan = try BindingPlan(text: text, mapping: try await keyboard.get(), bindings: bindings)
    for step in plan.steps {
      switch step {
      case .bind(let changes):
        await settleBeforeRebinding(changes.keys)
        try await bind(changes)
      case .type(let run):
        for invocation in Self.invocations(typing: run) {
          try await xdotool(
            invocation.arguments, input: invocation.text.map { Data($0.utf8) },
            keys: invocation.keys)
        }
        lastTyped = ContinuousClock.now
      }
    }
  }

  /// Rebinding keycodes that were just typed through: the window may still have those
  /// keystrokes queued, and it reads them with the mapping current when it gets to them. Give it
  /// ``rebindPause`` since the last text to catch up. Only reusing this typer's own keycodes
  /// (more distinct characters outside the map than there are free keycodes) gets here.
  private func settleBeforeRebinding(_ keycodes: Dictionary<Int, UInt32>.Keys) async {
    guard let lastTyped, keycodes.contains(where: { bindings[$0] != nil }) else { return }
    let wait = lastTyped + Self.rebindPause - ContinuousClock.now
    if wait > .zero { try? await Task.sleep(for: wait) }
  }

  func erase(_ count: Int) async throws(KeyboardClientFailure) {
    guard count > 0 else { return }
    try await checkFocus()
    try await xdotool(
      ["key", "--delay", Self.keyDelay] + Array(repeating: "BackSpace", count: count), keys: count)
  }

  /// Clears the keycodes this typer bound, where they still hold its keysyms.
  func finish() async {
    guard !bindings.isEmpty, let mapping = try? await mapping() else { return }
    let expressions = bindings.sorted { $0.key < $1.key }.compactMap { keycode, keysym in
      mapping.keycode(keycode, carries: keysym) ? "keycode \(keycode) =" : nil
    }
    bindings = [:]
    guard !expressions.isEmpty else { return }
    _ = try? await runner.run(
      xmodmap, expressions.flatMap { ["-e", $0] }, timeout: runner.deadline(keys: 0))
  }

  /// The current map; forgets bindings that no longer hold (after `setxkbmap`).
  private func mapping() async throws(KeyboardClientFailure) -> KeyboardMapping {
    let output = try await runner.run(xmodmap, ["-pk"], timeout: runner.deadline(keys: 0))
    guard output.succeeded else { throw Self.failure(output, tool: "xmodmap", display: display) }
    let mapping = KeyboardMapping(xmodmapTable: output.standardOutput)
    bindings = bindings.filter { mapping.keycode($0.key, carries: $0.value) }
    return mapping
  }

  private func bind(_ changes: [Int: UInt32]) async throws(KeyboardClientFailure) {
    let expressions = changes.sorted { $0.key < $1.key }.flatMap { keycode, keysym in
      ["-e", "keycode \(keycode) = \(KeyboardMapping.xmodmapName(keysym))"]
    }
    let output = try await runner.run(xmodmap, expressions, timeout: runner.deadline(keys: 0))
    guard output.succeeded else { throw Self.failure(output, tool: "xmodmap", display: display) }
    bindings.merge(changes) { $1 }
  }

  private func checkFocus() async throws(KeyboardClientFailure) {
    let roots = try await rootWindows()
    let output = try await runner.run(
      xdotool, ["getwindowfocus"], timeout: runner.deadline(keys: 0))
    if output.succeeded, let window = Int(output.standardOutput.trimmed) {
      if window <= 1 || roots.contains(window) { throw .noFocusedWindow }
      return
    }
    let failure = Self.failure(output, tool: "xdotool", display: display)
    // Connected, but no focus to report (focus None or PointerRoot).
    if case .failed = failure { throw .noFocusedWindow }
    throw failure
  }

  private func rootWindows() async throws(KeyboardClientFailure) -> Set<Int> {
    if let roots { return roots }
    let output = try await runner.run(
      xdotool, Self.rootSearch, timeout: runner.deadline(keys: 0))
    guard output.succeeded else { throw Self.failure(output, tool: "xdotool", display: display) }
    let found = Set(output.standardOutput.split(whereSeparator: \.isNewline).compactMap { Int($0) })
    roots = found
    return found
  }

  private func xdotool(
    _ arguments: [String], input: Data? = nil, keys: Int
  ) async throws(KeyboardClientFailure) {
    let output = try await runner.run(
      xdotool, arguments, input: input, timeout: runner.deadline(keys: keys))
    guard output.succeeded else { throw Self.failure(output, tool: "xdotool", display: display) }
  }

  /// One run of xdotool: its arguments, and the text it reads on standard input.
  struct Invocation: Equatable {
    var arguments: [String]
    /// What `type --file -` types, or `nil` for keys pressed by name.
    var text: String?
    /// The keys it presses, for its deadline.
    var keys: Int
  }

  /// The xdotool runs that type a run of text: `type --file -` for each line, the line on
  /// standard input (never as an argument, which any local user could read in `ps` or
  /// `/proc/PID/cmdline` while it runs), and `key Return` between lines (xdotool types `"\n"`
  /// as Linefeed, which is not Return), `key Tab` for tabs.
  static func invocations(typing text: String) -> [Invocation] {
    TypedSegment.segments(of: text).flatMap { segment in
      var invocations: [Invocation] = []
      if !segment.text.isEmpty {
        invocations.append(
          Invocation(
            arguments: ["type", "--delay", keyDelay, "--file", "-"], text: segment.text,
            keys: segment.text.unicodeScalars.count))
      }
      if !segment.keys.isEmpty {
        invocations.append(
          Invocation(
            arguments: ["key", "--delay", keyDelay] + segment.keys, text: nil,
            keys: segment.keys.count))
      }
      return invocations
    }
  }

  /// `text` composed (é as one character, as keysyms name it), without control characters other
  /// than newlines and tabs.
  static func typeable(_ text: String) -> String {
    var result = ""
    for scalar in text.precomposedStringWithCanonicalMapping.unicodeScalars {
      if scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || scalar.value == 0x7F) {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// What a failed xdotool or xmodmap run means.
  static func failure(
    _ output: ToolOutput, tool: String, display: String
  ) -> KeyboardClientFailure {
    let text = output.standardError + output.standardOutput
    for refusal in ["Authorization required", "No protocol specified", "Maximum number of clients"]
    where text.contains(refusal) {
      return .refused(
        tool: tool,
        reason: "the X server at \(display) refused the connection (\(refusal)): run it inside "
          + "the desktop session or allow it with xhost +SI:localuser:$(id -un)")
    }
    if text.contains("Can't open display") || text.contains("unable to open display") {
      return .noDisplay
    }
    return .failed(tool: tool, message: output.firstLine)
  }
}

extension String {
  var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
