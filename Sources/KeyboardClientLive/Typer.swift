/// The tools `transcribe dictate` can type with: the values of its `--typer` option.
///
/// ```swift
/// let choice = try KeyboardClient.resolve(.auto)
/// print("Typing with \(choice)")  // "Typing with wtype"
/// let keyboard = KeyboardClient.live(choice)
/// ```
public enum Typer: String, CaseIterable, Sendable {
  /// wtype on a Wayland compositor that offers the virtual-keyboard protocol, xdotool on X11 (and
  /// for XWayland windows), ydotool when its daemon answers, in that order.
  case auto
  /// `wtype`, through the Wayland virtual-keyboard protocol (wlroots compositors: sway, Hyprland,
  /// river, labwc). Any Unicode text.
  case wtype
  /// `xdotool` (with `xmodmap`), through the X server's XTEST extension: X11 sessions, and
  /// XWayland windows on Wayland. Characters outside the layout are bound to free keycodes while
  /// dictation runs.
  case xdotool
  /// `ydotool`, through the kernel's `/dev/uinput` (via `ydotoold`): any session, but ASCII only,
  /// typed as a US layout's keys.
  case ydotool
  /// Writes the text to standard output instead of typing it.
  case stdout
}

/// The typer ``KeyboardClient/resolve(_:environment:)`` settled on, checked to work here.
public struct TyperChoice: Equatable, Sendable, CustomStringConvertible {
  /// The tool; never ``Typer/auto``.
  public var typer: Typer
  /// What the user should know about the choice, e.g. that xdotool reaches only XWayland windows
  /// on this Wayland session; `nil` when there is nothing to say.
  public var note: String?

  /// A choice of `typer`, with an optional `note`.
  public init(typer: Typer, note: String? = nil) {
    self.typer = typer
    self.note = note
  }

  /// The tool's name, and the note in parentheses: `xdotool (XWayland windows only: …)`.
  public var description: String {
    let name = typer == .stdout ? "standard output" : typer.rawValue
    return note.map { "\(name) (\($0))" } ?? name
  }
}

/// A stretch of text for a typing tool: characters to type as text (no line breaks or tabs),
/// then the keys to press by name after them (`Return` for each line break, `Tab`).
struct TypedSegment: Equatable {
  var text: String
  var keys: [String]

  /// `text` cut into segments: a new one starts at the first character after a key.
  static func segments(of text: String) -> [TypedSegment] {
    var segments: [TypedSegment] = []
    var current = TypedSegment(text: "", keys: [])
    for character in text {
      switch character {
      case "\n", "\r\n":
        current.keys.append("Return")
      case "\t":
        current.keys.append("Tab")
      default:
        if !current.keys.isEmpty {
          segments.append(current)
          current = TypedSegment(text: "", keys: [])
        }
        current.text.append(character)
      }
    }
    if !current.text.isEmpty || !current.keys.isEmpty { segments.append(current) }
    return segments
  }
}
