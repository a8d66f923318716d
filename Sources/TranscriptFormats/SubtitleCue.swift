import Foundation
import SpeechClient

/// One subtitle cue: a time span and at most two lines of text.
///
/// Utterances are split into cues the way subtitle guidelines ask: at most
/// ``maximumDuration`` on screen and ``maximumLineLength`` characters per line, two lines at
/// most. A single word longer than a line, or lasting longer than a cue, gets a cue of its own.
/// The CLI (`--format srt|vtt`) and the server (`response_format=srt|vtt`) build their cues here,
/// so both write the same subtitles for the same words.
///
/// ```swift
/// for cue in SubtitleCue.cues(for: utterance) {
///   print(SubtitleFormat.srt.text(for: cue, number: 1))
/// }
/// ```
public struct SubtitleCue: Equatable, Sendable {
  /// The longest a cue stays on screen, in seconds.
  public static let maximumDuration: TimeInterval = 7
  /// The most characters on one line.
  public static let maximumLineLength = 42
  /// The most lines in a cue.
  public static let maximumLines = 2

  /// When the cue appears, in seconds from the start of the audio.
  public var start: TimeInterval
  /// When the cue disappears, in seconds from the start of the audio.
  public var end: TimeInterval
  /// The cue's text, one or two lines.
  public var lines: [String]

  /// Creates a cue.
  public init(start: TimeInterval, end: TimeInterval, lines: [String]) {
    self.start = start
    self.end = end
    self.lines = lines
  }

  /// The cues for one utterance's words, in order.
  public static func cues(for words: some Collection<TranscriptionSegment>) -> [SubtitleCue] {
    var cues: [SubtitleCue] = []
    var current: [TranscriptionSegment] = []
    for word in words {
      let candidate = current + [word]
      if let first = current.first,
        word.timestamp + word.duration - first.timestamp > maximumDuration
          || lines(for: candidate.map(\.substring)) == nil
      {
        cues.append(cue(for: current))
        current = [word]
      } else {
        current = candidate
      }
    }
    if !current.isEmpty { cues.append(cue(for: current)) }
    return cues
  }

  private static func cue(for words: [TranscriptionSegment]) -> SubtitleCue {
    let texts = words.map(\.substring)
    return SubtitleCue(
      start: words.first?.timestamp ?? 0,
      end: words.last.map { $0.timestamp + $0.duration } ?? 0,
      lines: lines(for: texts) ?? [texts.joined(separator: " ")])
  }

  /// The words wrapped into lines of at most ``maximumLineLength`` characters, or `nil` when
  /// they need more than ``maximumLines`` or one is too long for a line (such a word only fits a
  /// cue of its own).
  public static func lines(for words: [String]) -> [String]? {
    var lines: [String] = []
    for word in words {
      if let last = lines.last, last.count + 1 + word.count <= maximumLineLength {
        lines[lines.count - 1] = last + " " + word
      } else {
        lines.append(word)
      }
    }
    guard
      words.count <= 1
        || lines.count <= maximumLines
          && lines.allSatisfy({
            $0.count <= maximumLineLength
          })
    else { return nil }
    return lines
  }
}
