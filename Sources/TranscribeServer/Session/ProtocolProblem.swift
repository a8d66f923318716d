import Foundation
import SpeechClient

/// A problem in one protocol's own terms: the client's mistakes in that protocol's messages, and
/// what a field takes (``Expected``). The catalogue's third part, beside ``SessionProblem`` (what
/// every protocol shares) and ``RequestRefusal`` (refusals before any session): every sentence
/// the server says to a client about a problem is written in these three types and in
/// ``OpenAIError/message``.
///
/// Each protocol's own wording lives beside the protocol, as an extension of this type:
/// ``Vosk`` in `Protocols/Vosk/ProtocolProblem+Vosk.swift`, ``Realtime`` and ``Wyoming`` likewise
/// in their folders, an upload's ``Upload`` in `Protocols/OpenAI/ProtocolProblem+Upload.swift`
/// (and OpenAI's sentences in `OpenAIError+Message.swift` beside it). What a field takes
/// (``Expected``) is written here, once for Realtime and uploads both.
///
/// A protocol only renders a problem: vosk's close code (``WebSocketSessionError``), a Realtime
/// `error` event's code and param (``RealtimeError``), a Wyoming `error` event's code
/// (``WyomingProblem``), OpenAI's status, type and code (``OpenAIError``). A session that ends
/// for one reads `bad_input` in its log (``SessionProblem/badInput(_:)``).
///
/// ```swift
/// ProtocolProblem.vosk(.oddLengthFrame(bytes: 3)).text
/// // "audio frames must hold whole 16-bit samples; got 3 bytes"
/// ```
enum ProtocolProblem: Equatable, Sendable {
  /// A vosk stream's mistake, which ends the stream.
  case vosk(Vosk)
  /// A Wyoming client's mistake, which ends the connection.
  case wyoming(Wyoming)
  // A Realtime client's mistakes (``Realtime``) end nothing: each is an `error` event
  // (``RealtimeError``) and the session goes on.

  /// What the client is told, in the protocol's own style (vosk's and Wyoming's are phrases
  /// without a capital or a full stop).
  var text: String {
    switch self {
    case .vosk(let problem): problem.text
    case .wyoming(let problem): problem.text
    }
  }

  /// What a Realtime parameter or an upload's form field takes, as the answer about a wrong
  /// value says it ("expected …"); written once where both protocols take the same.
  enum Expected: Equatable, Sendable {
    // Both: a prompt's names become hotwords; the model.
    case hotwordPrompt(Hotwords.Problem)
    case english
    case servedLanguage
    case noStreamedTranslation
    case whisperForLanguage
    case installedEngine
    // Realtime's session parameters.
    case object
    case array
    case string
    case nullOrObject
    case transcriptionSession
    case quoted(String)
    case realtimeFormat
    case onlyRate(Int, type: String)
    case eagerness
    case turnDetection
    case fraction
    case wholeMilliseconds(ClosedRange<Int>)
    // An upload's form fields.
    case responseFormat
    case granularity
    case granularitiesOnlyVerbose
    case temperature
    case boolean
    case streamOnlyJSONOrText
    case logprobs
    case logprobsOnlyJSONOrStream
    case chunkingStrategy
    case chunkingType
    case chunkingKeys
    case threshold
    case namedMilliseconds(String, ClosedRange<Int>)

    var text: String {
      switch self {
      case .hotwordPrompt(let problem):
        "a prompt naming at most \(Hotwords.maximumCount) names of at most "
          + "\(Hotwords.maximumLength) characters (its names \(problem))"
      case .english: "en (this server's model is English)"
      case .servedLanguage: "a language code Whisper knows (e.g. de, fr, es), or auto"
      case .noStreamedTranslation: "false (translations are not streamed)"
      case .whisperForLanguage:
        "whisper, or a model this server maps to its default (other languages than English and "
          + "translation are Whisper's)"
      case .installedEngine: "an engine installed on this server (GET /v1/models lists them)"
      case .object: "an object"
      case .array: "an array"
      case .string: "a string"
      case .nullOrObject: "null or an object"
      case .transcriptionSession: "'transcription' (this server only runs transcription sessions)"
      case .quoted(let value): "'\(value)'"
      case .realtimeFormat:
        "{\"type\": \"audio/pcm\", \"rate\": \(RealtimeAudioFormat.pcmRate)}, "
          + "{\"type\": \"audio/pcmu\"} or "
          + "{\"type\": \"audio/pcma\"}"
      case .onlyRate(let rate, let type): "\(rate) (the only rate of \(type))"
      case .eagerness: "'low', 'medium', 'high' or 'auto'"
      case .turnDetection: "'server_vad', 'semantic_vad', or null for turn detection off"
      case .fraction: "a number between 0 and 1 (exclusive)"
      case .wholeMilliseconds(let range):
        "whole milliseconds from \(range.lowerBound) to \(range.upperBound)"
      case .responseFormat: "json, text, srt, vtt or verbose_json"
      case .granularity: "word or segment"
      case .granularitiesOnlyVerbose:
        "no timestamp granularities unless response_format is verbose_json or stream is true"
      case .temperature: "a number from 0 to 1"
      case .boolean: "true or false"
      case .streamOnlyJSONOrText:
        "false unless response_format is json or text (the formats that stream)"
      case .logprobs: "logprobs"
      case .logprobsOnlyJSONOrStream:
        "no logprobs unless response_format is json or the answer is streamed"
      case .chunkingStrategy: "auto or a JSON object with type server_vad"
      case .chunkingType: "auto or type server_vad"
      case .chunkingKeys: "type, threshold, prefix_padding_ms and silence_duration_ms"
      case .threshold: "a threshold between 0 and 1 (exclusive)"
      case .namedMilliseconds(let key, let range):
        "\(key) as whole milliseconds from \(range.lowerBound) to \(range.upperBound)"
      }
    }
  }
}
