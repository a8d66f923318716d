import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// Turns the states of a `SpeechRecognition` store into output, without doing any I/O.
///
/// The renderer remembers how many utterances it has written, so each finished utterance is
/// written once, in order. On a terminal (text format only) the words of the utterance still
/// being spoken are shown on one line that each state rewrites.
struct TranscriptRenderer {
  /// A piece of output.
  enum Output: Equatable {
    /// Text for standard output, written as is.
    case stdout(String)
  }

  let format: OutputFormat
  /// Whether standard output is a terminal (live line) or a pipe/file (finished lines only).
  let isTerminal: Bool
  /// Whether another writer (file progress on standard error) owns the terminal's current row,
  /// so each finished line first erases it. Only finished lines are written then.
  let sharesTheRow: Bool
  /// The file this transcript is for, added to JSON lines when several files are transcribed.
  let label: String?
  /// The terminal's width, to keep the live line on one row.
  let width: Int

  private var writtenUtterances = 0
  private var liveLine = ""
  private var wroteHeader = false
  private var wroteFinal = false

  init(
    format: OutputFormat, isTerminal: Bool, label: String? = nil, width: Int = 80,
    sharesTheRow: Bool = false
  ) {
    self.format = format
    self.sharesTheRow = sharesTheRow && isTerminal && format == .text
    self.isTerminal = isTerminal && format == .text && !sharesTheRow
    self.label = label
    self.width = max(width, 20)
  }

  /// The output for a new state.
  mutating func render(_ state: SpeechRecognition.State) -> [Output] {
    var output: [Output] = []
    if format == .vtt, !wroteHeader {
      wroteHeader = true
      output.append(.stdout("WEBVTT\n\n"))
    }
    guard let result = state.result else { return output }
    let transcription = result.bestTranscription
    let utterances = transcription.utterances(isFinal: result.isFinal)
    var lines = ""
    for (index, utterance) in utterances.enumerated().dropFirst(writtenUtterances) {
      lines += line(for: utterance, number: index + 1)
    }
    writtenUtterances = max(writtenUtterances, utterances.count)

    if isTerminal {
      let partial = result.isFinal ? "" : text(of: Array(transcription.partialSegments))
      let newLive = fitted(partial)
      if !lines.isEmpty || newLive != liveLine {
        output.append(.stdout(clearLine + lines + newLive))
        liveLine = newLive
      }
    } else if !lines.isEmpty {
      output.append(.stdout(sharesTheRow ? clearLine + lines : lines))
    }

    if result.isFinal, !wroteFinal {
      wroteFinal = true
      if format == .json {
        output.append(.stdout(jsonLine(finalOf: transcription)))
      }
    }
    return output
  }

  /// What to write when the session ends: a newline after a live line, so the prompt starts on
  /// its own row.
  mutating func finish() -> [Output] {
    guard isTerminal, !liveLine.isEmpty else { return [] }
    liveLine = ""
    return [.stdout("\n")]
  }

  // MARK: - Formats

  /// The output for finished utterance `number` (counting from 1).
  private func line(for utterance: [TranscriptionSegment], number: Int) -> String {
    let words = text(of: utterance)
    let (start, end) = span(of: utterance)
    switch format {
    case .text:
      return words + "\n"
    case .json:
      let line = JSONLine(
        type: "utterance", file: label, text: words, transcript: nil, isFinal: false,
        start: start, end: end, segments: utterance.map(JSONLine.Segment.init))
      return line.encoded() + "\n"
    case .srt:
      return "\(number)\n\(timestamp(start, separator: ",")) --> "
        + "\(timestamp(end, separator: ","))\n\(words)\n\n"
    case .vtt:
      return "\(timestamp(start, separator: ".")) --> \(timestamp(end, separator: "."))\n"
        + "\(words)\n\n"
    }
  }

  private func jsonLine(finalOf transcription: Transcription) -> String {
    let (start, end) = span(of: transcription.segments)
    return JSONLine(
      type: "final", file: label, text: nil, transcript: transcription.formattedString,
      isFinal: true, start: start, end: end,
      segments: transcription.segments.map(JSONLine.Segment.init)
    ).encoded() + "\n"
  }

  /// When the first of `segments` starts and the last ends, in seconds.
  private func span(of segments: [TranscriptionSegment]) -> (start: Double, end: Double) {
    let start = segments.first?.timestamp ?? 0
    return (start, segments.last.map { $0.timestamp + $0.duration } ?? start)
  }

  private func text(of segments: [TranscriptionSegment]) -> String {
    segments.map(\.substring).joined(separator: " ")
  }

  /// `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT).
  private func timestamp(_ seconds: TimeInterval, separator: String) -> String {
    let milliseconds = Int((max(seconds, 0) * 1000).rounded())
    let hours = milliseconds / 3_600_000
    let minutes = milliseconds / 60_000 % 60
    let secs = milliseconds / 1000 % 60
    let millis = milliseconds % 1000
    return String(format: "%02d:%02d:%02d%@%03d", hours, minutes, secs, separator, millis)
  }

  /// Erase the current terminal row and return to its start.
  private var clearLine: String { "\r\u{1B}[2K" }

  /// The live line cut to the terminal width, keeping the newest words.
  private func fitted(_ line: String) -> String {
    guard line.count >= width else { return line }
    return "…" + line.suffix(width - 2)
  }
}

/// One line of `--format json`.
struct JSONLine: Codable, Equatable {
  struct Segment: Codable, Equatable {
    var word: String
    var start: Double
    var end: Double
    var confidence: Double
    var alternatives: [String]

    init(_ segment: TranscriptionSegment) {
      word = segment.substring
      start = (segment.timestamp * 1000).rounded() / 1000
      end = ((segment.timestamp + segment.duration) * 1000).rounded() / 1000
      confidence = (Double(segment.confidence) * 1000).rounded() / 1000
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

  func encoded() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(self) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}
