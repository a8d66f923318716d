import ArgumentParser
import KeyboardClient

/// `--typer`: how `transcribe dictate` types.
enum TyperOption: String, CaseIterable, ExpressibleByArgument {
  case auto, wtype, xdotool, ydotool, stdout

  /// The keyboard client for this typer, checked up front, and the name of the tool it uses.
  func makeClient() throws(KeyboardClientFailure) -> (client: KeyboardClient, name: String) {
    switch self {
    case .stdout: return (.standardOutput, "standard output")
    case .auto, .wtype, .xdotool, .ydotool:
      throw .failed(tool: rawValue, message: "typing into windows is not built yet")
    }
  }
}
