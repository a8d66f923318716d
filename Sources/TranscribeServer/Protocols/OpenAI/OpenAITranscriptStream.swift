import Foundation
import Hummingbird
import SpeechClient
import Synchronization

/// A transcript sent as it is decoded, in the server-sent events OpenAI streams a transcription
/// with (`stream=true`): a `transcript.text.delta` for each utterance once it is final, in
/// order, then `transcript.text.done` with the whole text.
///
/// With ``timestamps`` (`timestamp_granularities[]` beside `stream=true`, our extension) a delta
/// also carries its utterance's `start` and `end` (`segment`) and its `words` with their times
/// (`word`), in seconds from the start of the file, as `verbose_json` writes them.
///
/// Deltas carry only decided words: an utterance is sent when the recognizer has finished it,
/// never a partial that could change. Joined, the deltas are the done event's text (each after
/// the first starts with the space that separates it from the one before).
///
/// ```swift
/// var stream = OpenAITranscriptStream()
/// for event in stream.events(for: result) { write(event.serverSentEvent) }
/// for event in stream.finish(with: OpenAITranscription(final)) { write(event.serverSentEvent) }
/// ```
struct OpenAITranscriptStream: Equatable, Sendable {
  /// Whether deltas and the done event carry the tokens' log probabilities.
  var includesLogprobs = false
  /// Which timestamps deltas carry.
  var timestamps: Set<OpenAITimestampGranularity> = []
  /// How many of the finished utterances have been looked at (empty ones included).
  private(set) var finishedSeen = 0
  /// How many utterances with words have been sent.
  private(set) var sentUtterances = 0

  /// The deltas for the utterances `result` finished since the last call.
  mutating func events(for result: SpeechRecognitionResult?) -> [Event] {
    guard let utterances = result?.bestTranscription.finishedUtterances else { return [] }
    var events: [Event] = []
    while finishedSeen < utterances.count {
      let words = utterances[finishedSeen]
      finishedSeen += 1
      guard !words.isEmpty else { continue }
      events.append(delta(words))
    }
    return events
  }

  /// The deltas for the words of `transcription` not sent yet (the last utterance of an input
  /// that ended mid-utterance), then the done event.
  mutating func finish(with transcription: OpenAITranscription) -> [Event] {
    var events: [Event] = []
    for words in transcription.utterances.dropFirst(sentUtterances) {
      events.append(delta(words[...]))
    }
    let words = transcription.utterances.reduce(0) { $0 + $1.count }
    events.append(
      .done(
        text: transcription.text, words: words,
        logprobs: includesLogprobs
          ? OpenAITranscription.logprobs(of: transcription.utterances) : nil))
    return events
  }

  private mutating func delta(_ words: ArraySlice<TranscriptionSegment>) -> Event {
    let text = OpenAITranscription.text(of: words)
    defer { sentUtterances += 1 }
    return .delta(
      sentUtterances == 0 ? text : " " + text,
      logprobs: includesLogprobs ? OpenAITranscription.logprobs(of: [words]) : nil,
      times: timestamps.isEmpty ? nil : DeltaTimes(words, granularities: timestamps))
  }

  /// The times a delta carries: its utterance's span, its words', or both.
  struct DeltaTimes: Equatable, Sendable {
    var start: Double?
    var end: Double?
    var words: [OpenAITranscription.Word]?

    init(start: Double? = nil, end: Double? = nil, words: [OpenAITranscription.Word]? = nil) {
      self.start = start
      self.end = end
      self.words = words
    }

    init(
      _ words: ArraySlice<TranscriptionSegment>, granularities: Set<OpenAITimestampGranularity>
    ) {
      if granularities.contains(.segment), let first = words.first, let last = words.last {
        start = OpenAITranscription.rounded(first.timestamp)
        end = OpenAITranscription.rounded(last.timestamp + last.duration)
      }
      if granularities.contains(.word) {
        self.words = words.map(OpenAITranscription.Word.init)
      }
    }
  }

  /// One event of the stream.
  enum Event: Equatable, Sendable {
    /// More text: an utterance, after a space unless it is the first; its tokens' log
    /// probabilities and its times when asked for.
    case delta(
      String, logprobs: [OpenAITranscription.Logprob]? = nil, times: DeltaTimes? = nil)
    /// The whole text; `words` is reported as the usage's output tokens.
    case done(text: String, words: Int, logprobs: [OpenAITranscription.Logprob]? = nil)
    /// Recognition failed after the stream began: the error, in OpenAI's shape.
    case error(OpenAIError)

    /// The event as it goes on the wire: `data: {json}` and a blank line.
    var serverSentEvent: ByteBuffer {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      let json: Data?
      switch self {
      case .delta(let text, let logprobs, let times):
        json = try? encoder.encode(
          Delta(
            delta: text, logprobs: logprobs, start: times?.start, end: times?.end,
            words: times?.words))
      case .done(let text, let words, let logprobs):
        json = try? encoder.encode(
          Done(
            text: text, logprobs: logprobs,
            usage: Usage(inputTokens: 0, outputTokens: words, totalTokens: words)))
      case .error(let error):
        return ByteBuffer(string: "data: " + String(buffer: error.jsonBody) + "\n\n")
      }
      return ByteBuffer(
        string: "data: " + String(decoding: json ?? Data("{}".utf8), as: UTF8.self) + "\n\n")
    }
  }

  /// `transcript.text.delta`.
  struct Delta: Codable, Equatable {
    var type = "transcript.text.delta"
    var delta: String
    var logprobs: [OpenAITranscription.Logprob]?
    /// Ours, with `timestamp_granularities[]`: the utterance's span and its words.
    var start: Double?
    var end: Double?
    var words: [OpenAITranscription.Word]?
  }

  /// `transcript.text.done`.
  struct Done: Codable, Equatable {
    var type = "transcript.text.done"
    var text: String
    var logprobs: [OpenAITranscription.Logprob]?
    var usage: Usage
  }

  /// The usage of `transcript.text.done`: no input tokens (audio is not counted in tokens
  /// here), the transcript's words as output tokens.
  struct Usage: Codable, Equatable {
    var type = "tokens"
    var inputTokens: Int
    var outputTokens: Int
    var totalTokens: Int

    enum CodingKeys: String, CodingKey {
      case type
      case inputTokens = "input_tokens"
      case outputTokens = "output_tokens"
      case totalTokens = "total_tokens"
    }
  }
}

/// An ``OpenAITranscriptStream`` shared between the task that reads an upload (which says when
/// the stream begins) and the one that follows its recognition; nothing is sent before it
/// begins.
final class StreamedTranscript: Sendable {
  private let state = Mutex<(hasBegun: Bool, stream: OpenAITranscriptStream)>(
    (false, OpenAITranscriptStream()))

  /// Whether the answer is a stream.
  var hasBegun: Bool { state.withLock { $0.hasBegun } }

  /// The answer is a stream from now on, with log probabilities when `includesLogprobs` and
  /// the `timestamps` asked for.
  func begin(includesLogprobs: Bool, timestamps: Set<OpenAITimestampGranularity> = []) {
    state.withLock {
      $0.hasBegun = true
      $0.stream.includesLogprobs = includesLogprobs
      $0.stream.timestamps = timestamps
    }
  }

  /// The deltas for the utterances `result` finished since the last call, once begun.
  func events(for result: SpeechRecognitionResult?) -> [OpenAITranscriptStream.Event] {
    state.withLock { state in
      state.hasBegun ? state.stream.events(for: result) : []
    }
  }

  /// The last deltas and the done event.
  func finish(with transcription: OpenAITranscription) -> [OpenAITranscriptStream.Event] {
    state.withLock { $0.stream.finish(with: transcription) }
  }
}
