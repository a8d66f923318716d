import Foundation
import SpeechClient
import SpeechClientLive
import SpeechRecognitionFeature
import TranscriptFormats

/// Turns the states of a `SpeechRecognition` store into output, without doing any I/O.
///
/// The renderer remembers how many utterances it has written and reads only the new ones from
/// each state, so a state costs the same an hour into a session as at its start. On a terminal
/// (text format) the words still being spoken, and a file's progress, are shown on one row that
/// each state rewrites; otherwise a file's progress gets that row on standard error when it is a
/// terminal. That row is the renderer's alone: status lines are drawn from the state too.
///
/// Several files share one renderer (``startFile(label:)`` between them): given the batch's
/// progress, the row shows the whole batch (files finished, percent of all the audio) and stays
/// from one file to the next until ``finish()``.
struct TranscriptRenderer {
  /// A piece of output.
  enum Output: Equatable {
    /// Text for standard output, written as is.
    case stdout(String)
    /// Text for standard error, written as is.
    case stderr(String)
  }

  let format: OutputFormat
  /// Whether the live row is on standard output (a terminal, text format).
  let isTerminal: Bool
  /// Whether standard error is a terminal, for status lines and a progress row.
  let stderrIsTerminal: Bool
  /// Whether standard output is a terminal (in any format), so a progress row on standard error
  /// shares its screen and is erased before transcript lines.
  let stdoutIsTerminal: Bool
  /// The file this transcript is for, added to JSON lines when several files are transcribed.
  private(set) var label: String?
  /// The terminal's width, to keep the live row on one line.
  let width: Int

  private var writtenUtterances = 0
  private var cueNumber = 0
  private var liveRow = ""
  private var progressRow = ""
  private var wroteHeader = false
  private var wroteFinal = false
  private var saidStopping = false
  private var warnedAboutSampleRate = false

  init(
    format: OutputFormat, stdoutIsTerminal: Bool, stderrIsTerminal: Bool = false,
    label: String? = nil, width: Int = 80
  ) {
    self.format = format
    self.isTerminal = stdoutIsTerminal && format == .text
    self.stdoutIsTerminal = stdoutIsTerminal
    self.stderrIsTerminal = stderrIsTerminal
    self.label = label
    self.width = max(width, 20)
  }

  /// Starts the transcript of the next file of a batch; the batch's progress row stays.
  mutating func startFile(label: String?) {
    self.label = label
    writtenUtterances = 0
    cueNumber = 0
    liveRow = ""
    wroteFinal = false
    saidStopping = false
    warnedAboutSampleRate = false
  }

  /// The output for a new state; `batch` is the progress of the batch the file belongs to, if
  /// several files are transcribed.
  mutating func render(
    _ state: SpeechRecognition.State, batch: FileBatchProgress? = nil
  ) -> [Output] {
    var output: [Output] = []
    if format == .vtt, !wroteHeader {
      wroteHeader = true
      output.append(.stdout(SubtitleFormat.vtt.header))
    }
    let stopping = state.status == .finishing && !saidStopping
    guard let result = state.result else {
      if stopping { output += announceStopping() }
      return output
    }
    if !warnedAboutSampleRate, let progress = result.progress,
      progress.isBelowRecommendedSampleRate, let rate = progress.recordedSampleRate
    {
      warnedAboutSampleRate = true
      if isTerminal, !liveRow.isEmpty {
        output.append(.stdout(Self.clearLine))
        liveRow = ""
      }
      output += stderrLine(Self.lowSampleRateWarning(rate))
    }
    let transcription = result.bestTranscription
    let utterances = transcription.finishedUtterances
    var lines = ""
    while writtenUtterances < utterances.count {
      lines += self.lines(for: utterances[writtenUtterances])
      writtenUtterances += 1
    }
    // A final result's trailing words are a last utterance.
    if result.isFinal, !wroteFinal, !transcription.partialSegments.isEmpty {
      lines += self.lines(for: transcription.partialSegments[...])
    }

    let fraction = state.request.source.isLive ? nil : result.progress?.fractionCompleted
    if isTerminal {
      var row = result.isFinal ? "" : text(of: transcription.partialSegments)
      if let batch, !result.isFinal {
        row = "[\(Self.batchSummary(batch))] " + row
      } else if let fraction, !result.isFinal {
        row = "[\(Self.percent(fraction))%] " + row
      }
      let newRow = fitted(row)
      if !lines.isEmpty || newRow != liveRow || stopping {
        output.append(.stdout(Self.clearLine + lines))
        if stopping { output += announceStopping() }
        output.append(.stdout(newRow))
        liveRow = newRow
      }
    } else {
      let newProgress: String
      if !stderrIsTerminal {
        newProgress = ""
      } else if let batch {
        // The batch's row stays between its files.
        newProgress = "transcribing… " + Self.batchSummary(batch)
      } else {
        newProgress =
          result.isFinal ? "" : fraction.map { "transcribing… \(Self.percent($0))%" } ?? ""
      }
      let sharesScreen = stdoutIsTerminal && !progressRow.isEmpty
      if !lines.isEmpty {
        if sharesScreen { output.append(.stderr(Self.clearLine)) }
        output.append(.stdout(lines))
      }
      if stopping { output += announceStopping() }
      if newProgress != progressRow || (sharesScreen && !lines.isEmpty) {
        output.append(.stderr(Self.clearLine + newProgress))
        progressRow = newProgress
      }
    }

    if result.isFinal, !wroteFinal {
      wroteFinal = true
      if format == .json {
        output.append(
          .stdout(
            jsonLine(finalOf: transcription, language: result.progress?.detectedLanguage)))
      }
    }
    return output
  }

  /// The one line that says a recording's rate costs accuracy, and what to do about it.
  static func lowSampleRateWarning(_ rate: Int) -> String {
    "transcribe: warning: the audio is sampled at \(rate) Hz; accuracy suffers below 16 kHz "
      + "(record at 16 kHz or more if you can)\n"
  }

  /// What to write when a file of a batch ends: a newline after a live row; the batch's
  /// progress row stays for the next file.
  mutating func finishFile() -> [Output] {
    guard !liveRow.isEmpty else { return [] }
    liveRow = ""
    return [.stdout("\n")]
  }

  /// What to write when the session (or the batch) ends: a newline after a live row, so the
  /// prompt starts on its own line, and the progress row erased.
  mutating func finish() -> [Output] {
    var output = finishFile()
    if !progressRow.isEmpty {
      progressRow = ""
      output.append(.stderr(Self.clearLine))
    }
    return output
  }

  /// What to write when the current file failed with `message` (also said on standard error):
  /// with several files in JSON, an `error` line for that file, after any words read before the
  /// failure, so a reader of the stream knows which file has no transcript and why.
  func failed(message: String, status: ExitStatus) -> [Output] {
    guard format == .json, let label else { return [] }
    return [
      .stdout(JSONErrorLine(file: label, error: message, status: status.rawValue).encoded() + "\n")
    ]
  }

  /// The status line for a stop, on standard error when it is a terminal.
  private mutating func announceStopping() -> [Output] {
    saidStopping = true
    guard stderrIsTerminal else { return [] }
    // It takes the row of the progress, if any; the next state draws that again.
    progressRow = ""
    return [.stderr(Self.clearLine + "Stopping… (Ctrl-C quits at once)\n")]
  }

  /// A line for standard error; a progress row there is erased first, and drawn again by the
  /// next state.
  private mutating func stderrLine(_ line: String) -> [Output] {
    guard !progressRow.isEmpty else { return [.stderr(line)] }
    progressRow = ""
    return [.stderr(Self.clearLine + line)]
  }

  /// `2/6 files, 47%`: files finished of all, and the part of all the audio decoded.
  static func batchSummary(_ batch: FileBatchProgress) -> String {
    let files = "\(batch.finishedFiles)/\(batch.fileCount) files"
    guard let fraction = batch.fractionCompleted else { return files }
    return files + ", \(percent(fraction))%"
  }

  // MARK: - Formats

  /// The output for one finished utterance.
  private mutating func lines(for utterance: ArraySlice<TranscriptionSegment>) -> String {
    guard !utterance.isEmpty else { return "" }
    switch format {
    case .text:
      return text(of: utterance) + "\n"
    case .json:
      let (start, end) = span(of: utterance)
      let line = JSONLine(
        type: "utterance", file: label, text: text(of: utterance), transcript: nil,
        isFinal: false, start: start, end: end, segments: utterance.map(JSONLine.Segment.init))
      return line.encoded() + "\n"
    case .srt, .vtt:
      let subtitles: SubtitleFormat = format == .srt ? .srt : .vtt
      var output = ""
      for cue in SubtitleCue.cues(for: utterance) {
        cueNumber += 1
        output += subtitles.text(for: cue, number: cueNumber)
      }
      return output
    }
  }

  /// The final line; `language` is the code detected with `--language auto`.
  private func jsonLine(finalOf transcription: Transcription, language: String?) -> String {
    let segments = Array(transcription.segments)
    let (start, end) = span(of: segments[...])
    var line = JSONLine(
      type: "final", file: label, text: nil, transcript: transcription.formattedString,
      isFinal: true, start: start, end: end, segments: segments.map(JSONLine.Segment.init))
    line.language = language
    return line.encoded() + "\n"
  }

  /// When the first of `segments` starts and the last ends, in seconds.
  private func span(
    of segments: ArraySlice<TranscriptionSegment>
  ) -> (start: Double, end: Double) {
    let start = segments.first?.timestamp ?? 0
    return (start, segments.last.map { $0.timestamp + $0.duration } ?? start)
  }

  private func text(of segments: some Sequence<TranscriptionSegment>) -> String {
    segments.map(\.substring).joined(separator: " ")
  }

  private static func percent(_ fraction: Double) -> Int {
    Int((min(max(fraction, 0), 1) * 100).rounded(.down))
  }

  /// Erase the current terminal row and return to its start.
  static let clearLine = "\r\u{1B}[2K"

  /// The live row cut to the terminal width, keeping the newest words.
  private func fitted(_ line: String) -> String {
    guard line.count >= width else { return line }
    return "…" + line.suffix(width - 2)
  }
}

/// One line of `--format json`; times in seconds, rounded to milliseconds.
struct JSONLine: JSONOutputLine {
  struct Segment: Codable, Equatable {
    var word: String
    var start: Double
    var end: Double
    var confidence: Double
    var alternatives: [String]

    init(_ segment: TranscriptionSegment) {
      word = segment.substring
      start = JSONLine.milliseconds(segment.timestamp)
      end = JSONLine.milliseconds(segment.timestamp + segment.duration)
      confidence = JSONLine.milliseconds(Double(segment.confidence))
      alternatives = segment.alternativeSubstrings
    }
  }

  /// `utterance` for each finished utterance, `final` for the last line.
  var type: String
  var file: String?
  /// The utterance's words (utterance lines).
  var text: String?
  /// The whole transcript (final line).
  var transcript: String?
  var isFinal: Bool
  var start: Double
  var end: Double
  var segments: [Segment]
  /// The language detected with `--language auto` (final line; absent otherwise).
  var language: String?

  init(
    type: String, file: String?, text: String?, transcript: String?, isFinal: Bool,
    start: Double, end: Double, segments: [Segment]
  ) {
    self.type = type
    self.file = file
    self.text = text
    self.transcript = transcript
    self.isFinal = isFinal
    self.start = Self.milliseconds(start)
    self.end = Self.milliseconds(end)
    self.segments = segments
  }

  /// `value` rounded to three decimals (`9.780000000000001` → `9.78`).
  static func milliseconds(_ value: Double) -> Double {
    (value * 1000).rounded() / 1000
  }
}

/// The line of `--format json` for a file that failed (when several files are transcribed):
/// `{"type":"error","file":…,"error":…,"status":…}`, `status` being the exit status the failure
/// has on its own.
struct JSONErrorLine: JSONOutputLine {
  var type = "error"
  var file: String
  var error: String
  var status: Int32
}

/// A line of `--format json`: one object, keys sorted, slashes as they are.
protocol JSONOutputLine: Codable, Equatable {}

extension JSONOutputLine {
  func encoded() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(self) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}
