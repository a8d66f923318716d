import Foundation
import SpeechClient

/// A reply of vosk-server's WebSocket protocol, one per message the client sends.
///
/// ```
/// {"partial" : "go forward"}
/// {"result" : [{"conf" : 0.98, "end" : 1.02, "start" : 0.71, "word" : "go"}, …], "text" : "go forward ten meters"}
/// {"error" : "…"}
/// ```
///
/// A result lists its words only when the stream's configuration asks for `words` (the default),
/// as vosk does. With `max_alternatives` above 0 it also has vosk's `"alternatives"`: the best
/// text first, then the variants made by putting in the alternatives pocketsphinx considered
/// for a word, each with the mean confidence of its words.
public enum VoskReply: Equatable, Sendable {
  /// The words of the utterance being spoken.
  case partial(String)
  /// A finished utterance (or, at the end, every one not sent yet).
  case result([TranscriptionSegment])
  /// Why the stream is being closed.
  case error(String)

  /// The reply as a JSON text message.
  public func json(configuration: VoskStreamConfiguration) -> String {
    switch self {
    case .partial(let text):
      return Self.encode(Partial(partial: text))
    case .error(let message):
      return Self.encode(ErrorReply(error: message))
    case .result(let segments):
      let words = segments.map(Word.init)
      let text = segments.map(\.substring).joined(separator: " ")
      let alternatives =
        configuration.maxAlternatives > 0
        ? Self.alternatives(
          of: segments, count: configuration.maxAlternatives, words: configuration.words)
        : nil
      return Self.encode(
        Result(
          result: configuration.words ? words : nil, text: text, alternatives: alternatives))
    }
  }

  struct Partial: Encodable {
    var partial: String
  }

  struct ErrorReply: Encodable {
    var error: String
  }

  struct Word: Encodable, Equatable {
    var conf: Double
    var end: Double
    var start: Double
    var word: String

    init(_ segment: TranscriptionSegment) {
      conf = Self.rounded(Double(segment.confidence))
      start = Self.rounded(segment.timestamp)
      end = Self.rounded(segment.timestamp + segment.duration)
      word = segment.substring
    }

    static func rounded(_ value: Double) -> Double {
      (value * 1_000_000).rounded() / 1_000_000
    }
  }

  struct Alternative: Encodable {
    var confidence: Double
    var result: [Word]?
    var text: String
  }

  struct Result: Encodable {
    var result: [Word]?
    var text: String
    var alternatives: [Alternative]?
  }

  /// The best transcription, then one variant per alternative word, up to `count` in all.
  static func alternatives(
    of segments: [TranscriptionSegment], count: Int, words: Bool
  ) -> [Alternative] {
    func alternative(_ segments: [TranscriptionSegment]) -> Alternative {
      let confidence =
        segments.isEmpty
        ? 0 : segments.map { Double($0.confidence) }.reduce(0, +) / Double(segments.count)
      return Alternative(
        confidence: Word.rounded(confidence),
        result: words ? segments.map(Word.init) : nil,
        text: segments.map(\.substring).joined(separator: " "))
    }
    var alternatives = [alternative(segments)]
    for index in segments.indices {
      for substitute in segments[index].alternativeSubstrings {
        guard alternatives.count < count else { return alternatives }
        var variant = segments
        variant[index].substring = substitute
        variant[index].confidence = 0
        alternatives.append(alternative(variant))
      }
    }
    return alternatives
  }

  private static func encode(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}
