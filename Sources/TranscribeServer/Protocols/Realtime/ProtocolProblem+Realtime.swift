import Foundation

extension ProtocolProblem {
  /// A Realtime client's mistakes in its events, written as OpenAI's Realtime API words them.
  enum Realtime: Equatable, Sendable {
    /// A text message that is not a JSON object.
    case invalidJSON
    /// A required parameter is missing.
    case missingParameter(String)
    /// A parameter the event does not have.
    case unknownParameter(String)
    /// A parameter's value (`value`, as briefly quoted) is not one it takes (`expected`).
    case invalidValue(param: String, value: String, expected: Expected)
    /// An event type the server does not know; `supported` lists the ones it does.
    case unknownEventType(String, supported: [String])
    /// `audio` that is not base64.
    case invalidBase64
    /// A binary WebSocket message.
    case binaryMessage
    /// Audio that does not hold whole 16-bit samples.
    case oddLength(bytes: Int)
    /// A commit of less audio than the shortest commit.
    case commitEmpty(milliseconds: Double)
    /// A format change while the buffer holds audio.
    case formatChangeWithAudio

    var text: String {
      switch self {
      case .invalidJSON:
        "The message is not a JSON object. Each client event is a JSON object with a 'type', "
          + "such as {\"type\": \"input_audio_buffer.commit\"}."
      case .missingParameter(let param):
        "Missing required parameter: '\(param)'."
      case .unknownParameter(let param):
        "Unknown parameter: '\(param)'."
      case .invalidValue(let param, let value, let expected):
        "Invalid value for '\(param)': \(value). Expected \(expected.text)."
      case .unknownEventType(let type, let supported):
        "Invalid value: '\(String(type.prefix(ServerConfiguration.quotedJSONValue)))'. "
          + "Supported values are: " + supported.map { "'\($0)'" }.joined(separator: ", ") + "."
      case .invalidBase64:
        "Invalid 'audio': the audio must be base64-encoded bytes in the session's format "
          + "(16-bit PCM at \(RealtimeAudioFormat.pcmRate / 1000) kHz by default)."
      case .binaryMessage:
        "Binary messages are not part of the Realtime API: send audio as "
          + "input_audio_buffer.append events with base64 'audio'."
      case .oddLength(let bytes):
        "Invalid 'audio': 16-bit PCM comes in whole samples of 2 bytes; got \(bytes) bytes."
      case .commitEmpty(let milliseconds):
        "Error committing input audio buffer: buffer too small. Expected at least "
          + "\(Int(ServerConfiguration.realtimeMinimumCommitMilliseconds))ms of audio, but buffer "
          + "only has " + String(format: "%.2f", milliseconds) + "ms of audio."
      case .formatChangeWithAudio:
        "The audio format cannot change while the input audio buffer holds audio; commit or "
          + "clear the buffer first."
      }
    }
  }
}
