import Dependencies
import Foundation
import KeyboardClient

extension KeyboardClient: DependencyKey {
  /// The typer `auto` finds, checked once; where none works, a client whose `type` and `erase`
  /// throw the reason (``KeyboardClientFailure``) and whose `finish` does nothing.
  public static let liveValue: KeyboardClient = {
    do throws(KeyboardClientFailure) {
      return try .live(.auto)
    } catch {
      return .failing(error)
    }
  }()

  /// Checks `typer` here (resolving ``Typer/auto``) and returns a client that types with it.
  ///
  /// The check runs the tool once (wtype asks the compositor for the virtual-keyboard protocol,
  /// xdotool connects to the X server, ydotool's daemon or `/dev/uinput` must answer), so a
  /// dictation that cannot type fails at start with one line instead of at the first utterance.
  ///
  /// ```swift
  /// let keyboard = try KeyboardClient.live(.auto)
  /// try await keyboard.type("Grüße, naïve café — 20 €.\n")
  /// await keyboard.finish()
  /// ```
  ///
  /// - Parameters:
  ///   - typer: The `--typer` value.
  ///   - environment: Where to find the session (`WAYLAND_DISPLAY`, `DISPLAY`,
  ///     `XDG_RUNTIME_DIR`) and the tools (`PATH`); the tools run in it.
  /// - Throws: ``KeyboardClientFailure``: no display server, the tool missing or refused.
  public static func live(
    _ typer: Typer, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(KeyboardClientFailure) -> KeyboardClient {
    try LiveTyper.check(typer, runner: ToolRunner(environment: environment)).typer.client
  }

  /// Which typer `typer` means here, checked as ``live(_:environment:)`` checks it: for the
  /// command-line tool to say "Typing with xdotool" before it starts.
  ///
  /// ```swift
  /// let choice = try KeyboardClient.resolve(.auto)
  /// print("Typing with \(choice)")
  /// let keyboard = KeyboardClient.live(choice)
  /// ```
  public static func resolve(
    _ typer: Typer, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(KeyboardClientFailure) -> TyperChoice {
    try LiveTyper.check(typer, runner: ToolRunner(environment: environment)).choice
  }

  /// A client for a typer ``resolve(_:environment:)`` chose, without checking it again. A tool
  /// that is gone by now fails at the first `type` with ``KeyboardClientFailure``.
  public static func live(
    _ choice: TyperChoice, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> KeyboardClient {
    let runner = ToolRunner(environment: environment)
    let missing = { (tool: String, package: String) in
      KeyboardClient.failing(.typerMissing(tool: tool, package: package))
    }
    switch choice.typer {
    case .auto:
      do throws(KeyboardClientFailure) {
        return try live(.auto, environment: environment)
      } catch {
        return .failing(error)
      }
    case .stdout:
      return .standardOutput
    case .wtype:
      guard let wtype = runner.executable("wtype") else { return missing("wtype", "wtype") }
      return LiveTyper.wtype(WtypeTyper(runner: runner, wtype: wtype)).client
    case .xdotool:
      guard let xdotool = runner.executable("xdotool") else { return missing("xdotool", "xdotool") }
      guard let xmodmap = runner.executable("xmodmap") else {
        return missing("xmodmap", "x11-xserver-utils")
      }
      return LiveTyper.xdotool(XdotoolTyper(runner: runner, xdotool: xdotool, xmodmap: xmodmap))
        .client
    case .ydotool:
      guard let ydotool = runner.executable("ydotool") else { return missing("ydotool", "ydotool") }
      return LiveTyper.ydotool(YdotoolTyper(runner: runner, ydotool: ydotool)).client
    }
  }

  /// A client whose `type` and `erase` throw `failure`.
  static func failing(_ failure: KeyboardClientFailure) -> KeyboardClient {
    KeyboardClient(
      type: { _ in throw failure },
      erase: { _ in throw failure },
      finish: {}
    )
  }
}

/// What the live client needs of a typing tool.
protocol TypingTool: Sendable {
  func type(_ text: String) async throws(KeyboardClientFailure)
  func erase(_ count: Int) async throws(KeyboardClientFailure)
  /// Gives back what typing borrowed; most tools borrow nothing.
  func finish() async
}

extension TypingTool {
  func finish() async {}
}

extension WtypeTyper: TypingTool {}
extension XdotoolTyper: TypingTool {}
extension YdotoolTyper: TypingTool {}

/// A checked typer.
enum LiveTyper: Sendable {
  case wtype(WtypeTyper)
  case xdotool(XdotoolTyper)
  case ydotool(YdotoolTyper)
  case stdout

  var client: KeyboardClient {
    switch self {
    case .wtype(let typer): Self.client(typer)
    case .xdotool(let typer): Self.client(typer)
    case .ydotool(let typer): Self.client(typer)
    case .stdout: .standardOutput
    }
  }

  /// A client whose calls reach `tool` one after another.
  private static func client(_ tool: some TypingTool) -> KeyboardClient {
    let queue = TypingQueue()
    return KeyboardClient(
      type: { text in
        try await queue.run { () async throws(KeyboardClientFailure) in try await tool.type(text) }
      },
      erase: { count in
        try await queue.run { () async throws(KeyboardClientFailure) in
          try await tool.erase(count)
        }
      },
      finish: {
        try? await queue.run { () async throws(KeyboardClientFailure) in await tool.finish() }
      })
  }

  /// Checks `typer`; for ``Typer/auto``, tries wtype on a Wayland session, then xdotool on an X
  /// display (on a Wayland session: XWayland's), then ydotool if its daemon answers.
  static func check(
    _ typer: Typer, runner: ToolRunner
  ) throws(KeyboardClientFailure) -> (choice: TyperChoice, typer: LiveTyper) {
    switch typer {
    case .stdout:
      return (TyperChoice(typer: .stdout), .stdout)
    case .wtype:
      return (TyperChoice(typer: .wtype), .wtype(try WtypeTyper.check(runner: runner)))
    case .xdotool:
      return (TyperChoice(typer: .xdotool), .xdotool(try XdotoolTyper.check(runner: runner)))
    case .ydotool:
      return (
        TyperChoice(typer: .ydotool, note: YdotoolTyper.note),
        .ydotool(try YdotoolTyper.check(runner: runner, daemonOnly: false))
      )
    case .auto:
      return try automatic(runner: runner)
    }
  }

  private static func automatic(
    runner: ToolRunner
  ) throws(KeyboardClientFailure) -> (choice: TyperChoice, typer: LiveTyper) {
    let environment = runner.environment
    let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    let x11 = !(environment["DISPLAY"] ?? "").isEmpty
    var waylandFailure: KeyboardClientFailure?
    if wayland {
      do {
        return (TyperChoice(typer: .wtype), .wtype(try WtypeTyper.check(runner: runner)))
      } catch {
        waylandFailure = error
      }
    }
    var x11Failure: KeyboardClientFailure?
    if x11 {
      do {
        let typer = try XdotoolTyper.check(runner: runner)
        let note = waylandFailure.map { "XWayland windows only: \($0.message)" }
        return (TyperChoice(typer: .xdotool, note: note), .xdotool(typer))
      } catch {
        x11Failure = error
      }
    }
    if runner.executable("ydotool") != nil,
      YdotoolTyper.daemonAnswers(environment: environment),
      let typer = try? YdotoolTyper.check(runner: runner, daemonOnly: true)
    {
      return (TyperChoice(typer: .ydotool, note: YdotoolTyper.note), .ydotool(typer))
    }
    // The session's own typer says best what to install or change.
    throw waylandFailure ?? x11Failure ?? .noDisplay
  }
}
