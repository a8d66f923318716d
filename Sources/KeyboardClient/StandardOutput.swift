import Foundation

extension KeyboardClient {
  /// Writes what it would type to standard output instead of typing it (`--typer stdout`, and
  /// the preview value): text as it is, each Backspace as the BS control character (`\u{8}`,
  /// ^H), so the output is the keystrokes themselves.
  public static let standardOutput = KeyboardClient(
    type: { text in try write(text) },
    erase: { count in try write(String(repeating: "\u{8}", count: max(0, count))) },
    finish: {}
  )

  private static func write(_ text: String) throws(KeyboardClientFailure) {
    do {
      try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    } catch {
      throw .failed(tool: "standard output", message: "\(error.localizedDescription)")
    }
  }
}
