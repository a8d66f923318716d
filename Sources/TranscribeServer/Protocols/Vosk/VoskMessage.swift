import Foundation
import SpeechClient

/// A text message of vosk-server's WebSocket protocol: the configuration or the end of the stream.
///
/// ```
/// {"config": {"sample_rate": 16000, "words": true, "max_alternatives": 0, "phrase_list": [...]}}
/// {"eof" : 1}
/// ```
public enum VoskMessage: Equatable, Sendable {
  /// The stream's settings (only as the first message).
  case config(VoskStreamConfiguration)
  /// The audio is over: the server answers with the last words and closes.
  case eof

  /// Parses a text message.
  ///
  /// - Throws: ``WebSocketSessionError/invalidJSON`` or ``WebSocketSessionError/notAnObject`` for text that is not a JSON object,
  ///   ``WebSocketSessionError/unsupportedMessage(_:)`` for an object that is neither message,
  ///   and the configuration's errors (see ``VoskStreamConfiguration/init(json:limits:)``).
  init(
    text: String, limits: ServerConfiguration = ServerConfiguration()
  ) throws(WebSocketSessionError) {
    let object: [String: JSONValue]
    do {
      let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
      guard case .object(let dictionary) = value else {
        throw WebSocketSessionError.notAnObject
      }
      object = dictionary
    } catch let error as WebSocketSessionError {
      throw error
    } catch {
      throw .invalidJSON
    }
    if let config = object["config"] {
      if let other = object.keys.first(where: { $0 != "config" }) {
        throw .unknownConfigurationField(other)
      }
      self = .config(try VoskStreamConfiguration(json: config, limits: limits))
    } else if object.keys.count == 1, let eof = object["eof"] {
      guard eof == .number(1) || eof == .bool(true) else {
        throw .invalidConfigurationValue(field: "eof", reason: .one)
      }
      self = .eof
    } else {
      throw .unsupportedMessage(Self.excerpt(text))
    }
  }

  /// Reads a text message as ``VoskCodec`` does, before it reaches the session: over the
  /// limit (``ServerConfiguration/maxFrameBytes``, the same as audio: a text message is a
  /// configuration or the end, never large) it is not parsed.
  static func read(
    _ text: String, limits: ServerConfiguration = ServerConfiguration()
  ) -> Result<VoskMessage, WebSocketSessionError> {
    let bytes = text.utf8.count
    guard bytes <= limits.maxFrameBytes else {
      return .failure(.session(.messageTooLarge(bytes: bytes, limit: limits.maxFrameBytes)))
    }
    do throws(WebSocketSessionError) {
      return .success(try VoskMessage(text: text, limits: limits))
    } catch {
      return .failure(error)
    }
  }

  private static func excerpt(_ text: String) -> String {
    let limit = ServerConfiguration.quotedMessage
    return text.count <= limit ? text : String(text.prefix(limit)) + "…"
  }
}

/// What a client may set in `{"config": {…}}`, with vosk-server's meaning.
public struct VoskStreamConfiguration: Equatable, Sendable {
  /// The rate of the binary PCM that follows, in Hz (default 16000, the model's rate; vosk-server
  /// defaults to 8000).
  public var sampleRate: Int = 16_000
  /// Whether results list their words with times and confidence (`"result": [...]`); default
  /// true, as vosk-server.
  public var words = true
  /// How many alternative transcriptions a result lists (`"alternatives"`); 0 for none.
  public var maxAlternatives = 0
  /// The phrases recognition is restricted to, or `nil` for free speech.
  public var phraseList: [String]?
  /// The language spoken (ours, not vosk-server's: a vosk server has one model per language):
  /// `en`, or on a server that runs Whisper any language it knows, or `auto`; `nil` for the
  /// server's default language.
  public var language: SpeechRecognitionRequest.Language?

  // The limits on these values are the server's (``ServerConfiguration/sampleRates``,
  // ``ServerConfiguration/maxAlternatives``, ``ServerConfiguration/maxPhrases``,
  // ``ServerConfiguration/maxPhraseLength``).

  /// The defaults: 16 kHz, words, no alternatives, no phrase list.
  public init() {}

  /// Reads the value of `"config"`.
  ///
  /// - Throws: ``WebSocketSessionError/unknownConfigurationField(_:)`` or
  ///   ``WebSocketSessionError/invalidConfigurationValue(field:reason:)``.
  init(
    json: JSONValue, limits: ServerConfiguration = ServerConfiguration()
  ) throws(WebSocketSessionError) {
    guard case .object(let fields) = json else {
      throw .invalidConfigurationValue(field: "config", reason: .object)
    }
    for (field, value) in fields.sorted(by: { $0.key < $1.key }) {
      switch field {
      case "sample_rate":
        guard case .number(let rate) = value, rate.isFinite,
          Double(limits.sampleRates.lowerBound)...Double(limits.sampleRates.upperBound) ~= rate
        else {
          throw .invalidConfigurationValue(
            field: field,
            reason: .sampleRate(limits.sampleRates))
        }
        sampleRate = Int(rate.rounded())
      case "words":
        switch value {
        case .bool(let flag): words = flag
        case .number(let number): words = number != 0
        default: throw .invalidConfigurationValue(field: field, reason: .boolean)
        }
      case "max_alternatives":
        guard case .number(let count) = value, count == count.rounded(),
          0...Double(limits.maxAlternatives) ~= count
        else {
          throw .invalidConfigurationValue(
            field: field, reason: .alternatives(maximum: limits.maxAlternatives))
        }
        maxAlternatives = Int(count)
      case "phrase_list":
        guard case .array(let items) = value else {
          throw .invalidConfigurationValue(field: field, reason: .listOfStrings)
        }
        guard items.count <= limits.maxPhrases else {
          throw .invalidConfigurationValue(
            field: field,
            reason: .phrases(.tooMany(items.count, limit: limits.maxPhrases)))
        }
        var phrases: [String] = []
        for (index, item) in items.enumerated() {
          guard case .string(let phrase) = item else {
            throw .invalidConfigurationValue(field: field, reason: .listOfStrings)
          }
          guard phrase.count <= limits.maxPhraseLength else {
            throw .invalidConfigurationValue(
              field: field,
              reason: .phrases(
                .tooLong(
                  phrase: index + 1, characters: phrase.count, limit: limits.maxPhraseLength)))
          }
          phrases.append(phrase)
        }
        phraseList = phrases
      case "language":
        guard case .string(let text) = value, let served = limits.servedLanguage(text) else {
          throw .invalidConfigurationValue(
            field: field, reason: .language(servesOthers: !limits.languages.isEmpty))
        }
        language = served
      default:
        throw .unknownConfigurationField(field)
      }
    }
  }
}

/// A JSON value, for reading messages field by field and rejecting what is not expected.
enum JSONValue: Equatable, Sendable, Decodable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }
}
