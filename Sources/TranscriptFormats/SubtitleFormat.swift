import Foundation
import SpeechClient

/// A subtitle file format: SubRip (`.srt`) or WebVTT (`.vtt`).
///
/// Writes ``SubtitleCue``s the way the CLI's `--format srt|vtt` and the server's
/// `response_format=srt|vtt` both do: numbered cues with `HH:MM:SS,mmm` times for SubRip, a
/// `WEBVTT` header and `HH:MM:SS.mmm` times for WebVTT, a blank line after every cue.
///
/// ```swift
/// let srt = SubtitleFormat.srt.document(for: transcription.finishedUtterances)
/// ```
public enum SubtitleFormat: String, Sendable, CaseIterable {
  /// SubRip: numbered cues, a comma before the milliseconds.
  case srt
  /// WebVTT: a `WEBVTT` header, a dot before the milliseconds.
  case vtt

  /// What the file starts with, before the first cue.
  public var header: String {
    switch self {
    case .srt: ""
    case .vtt: "WEBVTT\n\n"
    }
  }

  /// One cue, followed by a blank line; `number` counts cues from 1 (SubRip writes it, WebVTT
  /// does not need it).
  public func text(for cue: SubtitleCue, number: Int) -> String {
    let times = "\(timestamp(cue.start)) --> \(timestamp(cue.end))\n"
    let lines = cue.lines.joined(separator: "\n") + "\n\n"
    switch self {
    case .srt: return "\(number)\n" + times + lines
    case .vtt: return times + lines
    }
  }

  /// A time in seconds as `HH:MM:SS,mmm` (SubRip) or `HH:MM:SS.mmm` (WebVTT); negative times
  /// are written as zero.
  public func timestamp(_ seconds: TimeInterval) -> String {
    let milliseconds = Int((max(seconds, 0) * 1000).rounded())
    let hours = milliseconds / 3_600_000
    let minutes = milliseconds / 60_000 % 60
    let secs = milliseconds / 1000 % 60
    let millis = milliseconds % 1000
    let separator = self == .srt ? "," : "."
    return String(format: "%02d:%02d:%02d%@%03d", hours, minutes, secs, separator, millis)
  }

  /// A whole file: the header, then the cues of every utterance in order.
  public func document<Utterance: Collection<TranscriptionSegment>>(
    for utterances: some Sequence<Utterance>
  ) -> String {
    var output = header
    var number = 0
    for utterance in utterances {
      for cue in SubtitleCue.cues(for: utterance) {
        number += 1
        output += text(for: cue, number: number)
      }
    }
    return output
  }
}
