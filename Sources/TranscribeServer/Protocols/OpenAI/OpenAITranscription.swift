import Foundation
import Hummingbird
import SpeechClient
import TranscriptFormats

/// A finished transcript in the shapes OpenAI's transcription endpoint answers with.
///
/// Utterances (the recognizer's pauses) are OpenAI's segments. pocketsphinx has no tokens,
/// temperature or compression, so some `verbose_json` segment fields are filled as follows:
/// - `avg_logprob`: the mean natural log of the segment's word confidences (pocketsphinx's
///   posterior probabilities), per word rather than per token;
/// - `seek`: the segment's start in 10 ms frames (pocketsphinx's frame rate);
/// - `tokens`: always `[]` (there are no token ids); `temperature`: always 0 (decoding is
///   deterministic);
/// - `compression_ratio`: always 1 and `no_speech_prob`: always 0 (synthetic: every segment
///   holds recognized words).
public struct OpenAITranscription: Equatable, Sendable {
  /// The utterances, each one segment.
  public var utterances: [[TranscriptionSegment]]
  /// The audio's length in seconds.
  public var duration: TimeInterval
  /// What was done, as `verbose_json` says: `transcribe`, or `translate` (written as English).
  public var task = "transcribe"
  /// The language spoken, by its English name as `verbose_json` says it (`english`, `german`).
  public var language = "english"

  /// The transcript of a final result: its finished utterances, then its trailing words (the
  /// last utterance when the input ended mid-utterance).
  public init(_ result: SpeechRecognitionResult?) {
    let transcription = result?.bestTranscription
    var utterances = transcription.map { $0.finishedUtterances.map { Array($0) } } ?? []
    if let partial = transcription?.partialSegments, !partial.isEmpty {
      utterances.append(partial)
    }
    self.utterances = utterances.filter { !$0.isEmpty }
    let lastWordEnd = self.utterances.last?.last.map { $0.timestamp + $0.duration } ?? 0
    self.duration =
      result?.progress?.totalAudioDuration ?? result?.progress?.audioDuration ?? lastWordEnd
  }

  /// Every word, separated by spaces.
  public var text: String {
    utterances.map(Self.text(of:)).joined(separator: " ")
  }

  /// The response for `format`; `granularities` choose what `verbose_json` includes, and
  /// `includesLogprobs` whether `json` has the tokens' log probabilities.
  public func response(
    format: OpenAIResponseFormat, granularities: Set<OpenAITimestampGranularity> = [.segment],
    includesLogprobs: Bool = false
  ) -> Response {
    switch format {
    case .json:
      return Self.json(
        Simple(text: text, logprobs: includesLogprobs ? Self.logprobs(of: utterances) : nil))
    case .text:
      return Self.plain(text + "\n", contentType: "text/plain; charset=utf-8")
    case .srt:
      return Self.plain(
        SubtitleFormat.srt.document(for: utterances), contentType: "text/plain; charset=utf-8")
    case .vtt:
      return Self.plain(
        SubtitleFormat.vtt.document(for: utterances), contentType: "text/vtt; charset=utf-8")
    case .verboseJSON:
      return Self.json(verbose(granularities: granularities))
    }
  }

  /// The `verbose_json` object.
  func verbose(granularities: Set<OpenAITimestampGranularity>) -> Verbose {
    Verbose(
      task: task, language: language, duration: Self.rounded(duration), text: text,
      segments: granularities.contains(.segment)
        ? utterances.enumerated().map { Segment(id: $0.offset, words: $0.element) } : nil,
      words: granularities.contains(.word)
        ? utterances.joined().map { Word($0) } : nil)
  }

  // MARK: - Shapes

  /// `json`: the text, and the tokens' log probabilities when asked for.
  struct Simple: Codable, Equatable {
    var text: String
    var logprobs: [Logprob]?
  }

  /// One token's log probability, as `include[]=logprobs` gives it.
  struct Logprob: Codable, Equatable, Sendable {
    var token: String
    var bytes: [UInt8]
    var logprob: Double
  }

  /// The log probabilities of the tokens of `utterances`' words: the engine's tokens, or, for
  /// a word without (pocketsphinx), the word itself with the log of its confidence.
  static func logprobs(
    of utterances: some Sequence<some Sequence<TranscriptionSegment>>
  )
    -> [Logprob]
  {
    utterances.joined().flatMap { word -> [Logprob] in
      guard !word.tokens.isEmpty else {
        return [
          Logprob(
            token: word.substring, bytes: Array(word.substring.utf8),
            logprob: log(max(Double(word.confidence), 1e-6)))
        ]
      }
      return word.tokens.map {
        Logprob(
          token: String(decoding: $0.bytes, as: UTF8.self), bytes: $0.bytes,
          logprob: $0.logprob)
      }
    }
  }

  /// `verbose_json`.
  struct Verbose: Codable, Equatable {
    var task: String
    var language: String
    var duration: Double
    var text: String
    var segments: [Segment]?
    var words: [Word]?
  }

  /// One segment of `verbose_json`: an utterance.
  struct Segment: Codable, Equatable {
    var id: Int
    var seek: Int
    var start: Double
    var end: Double
    var text: String
    var tokens: [Int]
    var temperature: Double
    var avgLogprob: Double
    var compressionRatio: Double
    var noSpeechProb: Double

    enum CodingKeys: String, CodingKey {
      case id, seek, start, end, text, tokens, temperature
      case avgLogprob = "avg_logprob"
      case compressionRatio = "compression_ratio"
      case noSpeechProb = "no_speech_prob"
    }

    init(id: Int, words: [TranscriptionSegment]) {
      let start = words.first?.timestamp ?? 0
      self.id = id
      self.seek = Int((start * 100).rounded())
      self.start = OpenAITranscription.rounded(start)
      self.end = OpenAITranscription.rounded(words.last.map { $0.timestamp + $0.duration } ?? 0)
      self.text = OpenAITranscription.text(of: words)
      self.tokens = []
      self.temperature = 0
      let logs = words.map { log(max(Double($0.confidence), 1e-6)) }
      self.avgLogprob = OpenAITranscription.rounded(
        logs.isEmpty ? 0 : logs.reduce(0, +) / Double(logs.count))
      self.compressionRatio = 1
      self.noSpeechProb = 0
    }
  }

  /// One word of `verbose_json`.
  struct Word: Codable, Equatable {
    var word: String
    var start: Double
    var end: Double

    init(_ segment: TranscriptionSegment) {
      word = segment.substring
      start = OpenAITranscription.rounded(segment.timestamp)
      end = OpenAITranscription.rounded(segment.timestamp + segment.duration)
    }
  }

  static func text(of words: some Sequence<TranscriptionSegment>) -> String {
    words.map(\.substring).joined(separator: " ")
  }

  /// Seconds rounded to milliseconds (`9.780000000000001` → `9.78`).
  static func rounded(_ value: Double) -> Double {
    (value * 1000).rounded() / 1000
  }

  private static func json(_ value: some Encodable) -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return Response(
      status: .ok, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  private static func plain(_ text: String, contentType: String) -> Response {
    Response(
      status: .ok, headers: [.contentType: contentType],
      body: .init(byteBuffer: ByteBuffer(string: text)))
  }
}
