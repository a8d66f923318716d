import Foundation
import KeyboardClient

/// Types through `wtype`, the Wayland virtual-keyboard protocol's typing tool.
///
/// Each wtype process creates a virtual keyboard and uploads a keymap holding just the
/// characters it types; keys sent right after the upload were lost here (the first character,
/// sometimes a whole word, in 17 of 40 back-to-back runs under sway). A 50 ms pause first (`-s
/// 50`) fixed it: 100 of 100 runs arrived whole under load 9, where 20 ms was the least that
/// did. So each utterance is one wtype call: `-s 50`, then its lines with `-k Return` between
/// them.
struct WtypeTyper: Sendable {
  let runner: ToolRunner
  let wtype: URL

  /// Milliseconds wtype waits after uploading its keymap, before the first key.
  static let settle = "50"

  /// Finds wtype and asks the compositor whether it offers the virtual-keyboard protocol:
  /// `wtype ""` connects, looks for `zwp_virtual_keyboard_manager_v1` (saying "Compositor does
  /// not support the virtual keyboard protocol" without it) and types nothing. No other tool
  /// (such as wayland-info) is needed, and the answer is the typing tool's own.
  static func check(runner: ToolRunner) throws(KeyboardClientFailure) -> WtypeTyper {
    guard let wtype = runner.executable("wtype") else {
      throw .typerMissing(tool: "wtype", package: "wtype")
    }
    let output = try runner.runBlocking(wtype, [""], timeout: runner.deadline(keys: 0))
    if !output.succeeded { throw failure(output) }
    return WtypeTyper(runner: runner, wtype: wtype)
  }

  func type(_ text: String) async throws(KeyboardClientFailure) {
    for invocation in Self.invocations(typing: text) {
      try await run(
        invocation.arguments, input: invocation.text.map { Data($0.utf8) }, keys: invocation.keys)
    }
  }

  func erase(_ count: Int) async throws(KeyboardClientFailure) {
    guard count > 0 else { return }
    try await run(
      ["-s", Self.settle] + Array(repeating: ["-k", "BackSpace"], count: count).flatMap { $0 },
      keys: count)
  }

  private func run(
    _ arguments: [String], input: Data? = nil, keys: Int
  ) async throws(KeyboardClientFailure) {
    let output = try await runner.run(
      wtype, arguments, input: input, timeout: runner.deadline(keys: keys))
    if !output.succeeded { throw Self.failure(output) }
  }

  /// One run of wtype: its arguments, and the text it reads on standard input (`-`).
  struct Invocation: Equatable {
    var arguments: [String]
    /// What `-` types, or `nil` for keys pressed by name only.
    var text: String?
    /// The keys it presses, for its deadline.
    var keys: Int
  }

  /// The wtype runs that type `text`: each line read from standard input (`-`, never as an
  /// argument, which any local user could read in `ps` or `/proc/PID/cmdline` while it runs),
  /// followed in the same run by `-k Return` for each line break (wtype would type `"\n"` as
  /// Linefeed) and `-k Tab` for tabs. A one-line text is one run, as before: every run uploads
  /// a keymap, so no more are made than the line breaks need (`-` may appear only once).
  static func invocations(typing text: String) -> [Invocation] {
    TypedSegment.segments(of: XdotoolTyper.typeable(text)).map { segment in
      let line = segment.text
      return Invocation(
        arguments: ["-s", settle] + (line.isEmpty ? [] : ["-"])
          + segment.keys.flatMap { ["-k", $0] },
        text: line.isEmpty ? nil : line, keys: line.unicodeScalars.count + segment.keys.count)
    }
  }

  /// What a failed wtype run means.
  static func failure(_ output: ToolOutput) -> KeyboardClientFailure {
    let text = output.standardError + output.standardOutput
    if text.contains("virtual keyboard protocol") {
      return .refused(
        tool: "wtype",
        reason: "the compositor does not offer the virtual-keyboard protocol "
          + "(zwp_virtual_keyboard_manager_v1; GNOME and KDE do not): use --typer ydotool "
          + "(apt install ydotool ydotoold), or xdotool for XWayland windows")
    }
    if text.contains("Wayland connection failed") || text.contains("XDG_RUNTIME_DIR") {
      return .noDisplay
    }
    return .failed(tool: "wtype", message: output.firstLine)
  }
}
