import Dependencies
import IssueReporting

/// Types text into the window that has the keyboard focus, as a person's keystrokes would.
///
/// The interface `transcribe dictate` depends on. The live value (in `KeyboardClientLive`, which
/// only the executable links) drives a typing tool: `wtype` on Wayland compositors that offer the
/// virtual-keyboard protocol, `xdotool` on X11, `ydotool` through its uinput daemon. The test
/// value fails any endpoint a test did not override; the preview value writes to standard output
/// what it would type.
///
/// ```swift
/// @Dependency(\.keyboardClient) var keyboard
/// try await keyboard.type("Turn on the kitchen lights.")
/// try await keyboard.erase(1)  // Backspace once
/// ```
@DependencyClient
public struct KeyboardClient: Sendable {
  /// Types `text` into the focused window; `"\n"` presses Return. Text outside the keyboard
  /// layout (é ü ß ’ — €) arrives intact where the typer can map it.
  ///
  /// - Throws: a ``Failure`` saying why nothing (or not all of it) was typed.
  public var type: @Sendable (_ text: String) async throws -> Void
  /// Presses Backspace `count` times (to take back typed text).
  ///
  /// - Throws: a ``Failure``.
  public var erase: @Sendable (_ count: Int) async throws -> Void
  /// Gives back what typing borrowed (keys bound to characters outside the layout); called once
  /// typing is over.
  public var finish: @Sendable () async -> Void
}

extension KeyboardClient: TestDependencyKey {
  /// Writes what it would type to standard output: Backspace as the BS character (^H).
  public static var previewValue: KeyboardClient { .standardOutput }

  /// Every endpoint fails the test when called without an override, naming itself
  /// (`KeyboardClient.type`).
  public static let testValue = KeyboardClient()
}

extension DependencyValues {
  /// The client that types into the focused window.
  public var keyboardClient: KeyboardClient {
    get { self[KeyboardClient.self] }
    set { self[KeyboardClient.self] = newValue }
  }
}
