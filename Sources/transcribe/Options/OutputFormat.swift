import ArgumentParser

/// How the transcript is written to standard output.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
  /// Plain text: on a terminal the current words rewrite one line and finished utterances stay;
  /// into a pipe, one finished utterance per line.
  case text
  /// One JSON object per line: each finished utterance, then a final line with the whole
  /// transcript.
  case json
  /// SubRip subtitles, one cue per utterance.
  case srt
  /// WebVTT subtitles, one cue per utterance.
  case vtt

  static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
