import Foundation

extension OpenAIError {
  /// What went wrong and what to do, in one sentence, as OpenAI's API writes them.
  public var message: String {
    switch self {
    case .unauthorized:
      RequestRefusal.unauthorized.sentence
    case .noCapacity:
      SessionProblem.busy.sentence
    case .shuttingDown:
      SessionProblem.shuttingDown.sentence
    case .notMultipart(let contentType):
      "Send the audio as multipart/form-data with a `file` field (the request's "
        + "Content-Type is \(contentType.map { "`\($0)`" } ?? "missing"))."
    case .malformedMultipart(let problem):
      "The multipart/form-data body cannot be read: \(Self.sentence(problem))"
    case .missingField(let field):
      "The `\(field)` field is required."
    case .invalidField(let field, let value, let expected):
      "`\(value.cut(after: ServerConfiguration.quotedFieldValue))` is not a valid "
        + "`\(field)`: expected \(expected)."
    case .uploadTooLarge(let limit):
      "The upload is larger than this server's limit of \(Self.size(limit)) "
        + "(serve --max-upload-mb)."
    case .audioTooLong(let seconds, let limit):
      "The uploaded `file` holds \(Int(seconds.rounded(.up))) s of audio, more than this "
        + "server's limit of \(limit.components.seconds) s per upload (serve "
        + "--max-upload-seconds); split it into shorter files."
    case .uploadTooSlow(let rate, let grace):
      "The upload arrived too slowly: this server needs the body at "
        + "\(Self.size(rate))/s or more on average after its first "
        + "\(grace.spokenSeconds); send it over a faster connection."
    case .unreadableAudio(let reason):
      "The uploaded `file` is not audio this server can read (WAV, FLAC, OGG/Vorbis, "
        + "Opus, MP3, … as libsndfile reads them): \(Self.sentence(reason))"
    case .recognitionFailed(let reason):
      "Recognition failed on the server: \(Self.sentence(reason))"
    case .sessionTooLong(let limit):
      "The transcription took longer than this server allows "
        + "(\(limit.components.seconds) s, serve --max-session-seconds); send shorter audio."
    case .clientGone:
      "The client closed the connection before the answer."
    }
  }

  /// `text` ending with one period, however it ended.
  private static func sentence(_ text: String) -> String {
    var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    while text.hasSuffix(".") { text.removeLast() }
    return text + "."
  }

  private static func size(_ bytes: Int) -> String {
    if bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    return bytes % (1 << 10) == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
  }
}
