import DictationFeature
import Foundation
import SpeechClient

/// Turns the states of a `Dictation` store into output, without doing any I/O.
///
/// On a terminal it shows what is heard and what became of it: the words being spoken rewrite
/// one row, and each utterance stays on a line of its own once typed (commands in brackets,
/// "not typed" where the keyboard failed, "scratched" for an utterance taken back). Into a pipe
/// or file, standard output gets exactly what was typed (spacing and line breaks included, a
/// Backspace as the BS character ^H) and what could not be typed, so nothing said is lost; a
/// final line break ends it. With
/// `--typer stdout` the keyboard itself writes to standard output, so this writes nothing there.
struct DictationRenderer {
  typealias Output = TranscriptRenderer.Output

  /// Whether standard output is a terminal.
  let isTerminal: Bool
  /// Whether standard error is a terminal, for status lines.
  let stderrIsTerminal: Bool
  /// Whether the keyboard writes to standard output itself.
  let keyboardWritesStandardOutput: Bool
  let width: Int

  /// What was reported of each entry the state still holds (older ones are forgotten, as the
  /// state forgets them).
  private(set) var reported: [Int: Dictation.Entry.Status] = [:]
  private var liveRow = ""
  private var warned = false
  private var wasPaused: Bool?
  private var endsWithLineBreak = true

  init(
    isTerminal: Bool, stderrIsTerminal: Bool, keyboardWritesStandardOutput: Bool,
    width: Int = 80
  ) {
    self.isTerminal = isTerminal
    self.stderrIsTerminal = stderrIsTerminal
    self.keyboardWritesStandardOutput = keyboardWritesStandardOutput
    self.width = max(width, 20)
  }

  /// The output for a new state.
  mutating func render(_ state: Dictation.State) -> [Output] {
    var output: [Output] = []
    if let failure = state.typingFailure, !warned {
      warned = true
      output += eraseLiveRow()
      output.append(
        .stderr(
          "transcribe: warning: \(failure.message). What is not typed goes to standard output.\n"
        ))
    }
    if stderrIsTerminal, wasPaused != state.isPaused, !state.isStopping {
      if wasPaused != nil || state.isPaused {
        output += eraseLiveRow()
        output.append(
          .stderr(
            state.isPaused
              ? "Paused: nothing is heard or typed. `transcribe dictate --resume` goes on.\n"
              : "Listening.\n"))
      }
      wasPaused = state.isPaused
    }
    for entry in state.entries where entry.status != .waiting && reported[entry.id] != entry.status
    {
      let before = reported[entry.id]
      reported[entry.id] = entry.status
      output += eraseLiveRow()
      output += lines(for: entry, before: before)
    }
    if let oldest = state.entries.first?.id, reported.count > state.entries.count {
      reported = reported.filter { $0.key >= oldest }
    }
    if isTerminal, !keyboardWritesStandardOutput {
      let partial =
        state.speech.result?.bestTranscription.partialSegments
        .map(\.substring).joined(separator: " ") ?? ""
      output += showLiveRow(state.isPaused ? "" : partial)
    }
    return output
  }

  /// The lines that report an entry that was typed, not typed, or scratched.
  private mutating func lines(
    for entry: Dictation.Entry, before: Dictation.Entry.Status?
  ) -> [Output] {
    // The keystrokes: Backspaces (as BS, ^H) for what was erased first, then the text.
    let keystrokes = String(repeating: "\u{8}", count: entry.erase) + entry.text
    let isKeystrokes =
      (entry.status == .typed || entry.status == .notTyped) && before == nil
      && !keystrokes.isEmpty
    if isKeystrokes, keyboardWritesStandardOutput || !isTerminal, !entry.text.isEmpty {
      endsWithLineBreak = entry.text.hasSuffix("\n")
    }
    guard isTerminal, !keyboardWritesStandardOutput else {
      // A pipe gets the keystrokes: what was typed, and what could not be.
      guard isKeystrokes, !keyboardWritesStandardOutput else { return [] }
      return [.stdout(keystrokes)]
    }
    let shown: String
    switch (entry.status, entry.command) {
    case (.scratched, _):
      shown = "[scratched] \(entry.heard)"
    case (_, .some(let command)):
      shown = "[\(command.rawValue)]"
    case (.notTyped, nil):
      shown = "\(entry.heard)  (not typed: \(entry.text.debugDescription))"
    default:
      shown = entry.heard
    }
    return [.stdout(shown + "\n")]
  }

  /// What ends the output: the live row erased, and a line break after typed text.
  mutating func finish() -> [Output] {
    var output = eraseLiveRow()
    if !endsWithLineBreak {
      endsWithLineBreak = true
      output.append(.stdout("\n"))
    }
    return output
  }

  private mutating func showLiveRow(_ text: String) -> [Output] {
    let row = String(text.suffix(width - 1))
    guard row != liveRow else { return [] }
    liveRow = row
    return [.stdout("\r\u{1B}[K" + row)]
  }

  private mutating func eraseLiveRow() -> [Output] {
    guard !liveRow.isEmpty else { return [] }
    liveRow = ""
    return [.stdout("\r\u{1B}[K")]
  }
}
