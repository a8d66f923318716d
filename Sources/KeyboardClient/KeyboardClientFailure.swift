/// Why a ``KeyboardClient`` could not type, each with one line that names the fix.
public enum KeyboardClientFailure: Error, Equatable, Sendable {
  /// Neither a Wayland compositor nor an X server is reachable (`WAYLAND_DISPLAY`, `DISPLAY`
  /// unset or dead), and no ydotool daemon answers.
  case noDisplay
  /// The typing tool is not installed: its name and the Debian package that has it.
  case typerMissing(tool: String, package: String)
  /// The tool is there but may not type here: the Wayland compositor lacks the virtual-keyboard
  /// protocol, ydotool's daemon or `/dev/uinput` is not reachable, the X server refused. The
  /// reason says which and what to do.
  case refused(tool: String, reason: String)
  /// No window has the keyboard focus (it was closed).
  case noFocusedWindow
  /// The tool cannot type these characters (ydotool types ASCII only); nothing of the text was
  /// typed.
  case cannotType(tool: String, characters: String)
  /// The tool failed for another reason: its name and what it said.
  case failed(tool: String, message: String)

  /// One line saying what went wrong and how to fix it.
  public var message: String {
    switch self {
    case .noDisplay:
      "no display server to type into: run transcribe dictate inside a Wayland or X11 session "
        + "(WAYLAND_DISPLAY or DISPLAY set), or start ydotoold, or use --typer stdout"
    case let .typerMissing(tool, package):
      "\(tool) is not installed: apt install \(package), or choose another --typer"
    case let .refused(tool, reason):
      "\(tool) cannot type here: \(reason)"
    case .noFocusedWindow:
      "no window has the keyboard focus: click into the window to type into"
    case let .cannotType(tool, characters):
      "\(tool) cannot type “\(characters)” (it types ASCII only): use --typer wtype on Wayland "
        + "or --typer xdotool on X11"
    case let .failed(tool, message):
      "\(tool) failed: \(message)"
    }
  }
}

extension KeyboardClientFailure {
  /// `error` as a keyboard failure: itself when it is one, else ``failed(tool:message:)`` naming
  /// the typer.
  public init(_ error: any Error) {
    self = error as? KeyboardClientFailure ?? .failed(tool: "the typer", message: "\(error)")
  }
}

extension KeyboardClient {
  /// Why a keyboard client could not type (see ``KeyboardClientFailure``).
  public typealias Failure = KeyboardClientFailure
}
