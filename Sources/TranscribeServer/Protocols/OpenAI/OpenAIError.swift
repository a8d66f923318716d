import Foundation
import Hummingbird

/// A failed request to the OpenAI-compatible endpoint, answered in OpenAI's error shape:
/// `{"error": {"message": "…", "type": "invalid_request_error", "param": "file", "code": null}}`.
///
/// Each case carries what the message names, so a client sees what to fix; the official SDKs
/// raise their matching exception (`BadRequestError`, `AuthenticationError`, …) from the status.
/// Its sentences (``message``) are written in `OpenAIError+Message.swift`, beside an upload's
/// part of the problem catalogue (``ProtocolProblem/Upload``).
public enum OpenAIError: Error, Equatable, Sendable {
  /// The request has no `Authorization: Bearer` header with the server's token (401).
  case unauthorized
  /// The body is not `multipart/form-data` with a boundary (400).
  case notMultipart(contentType: String?)
  /// The multipart body cannot be parsed, or ends before its last part does (400).
  case malformedMultipart(String)
  /// A required field is missing (400).
  case missingField(String)
  /// A field has a value the endpoint does not accept; `expected` says what it does (400).
  case invalidField(String, value: String, expected: String)
  /// The upload is larger than the server allows (413).
  case uploadTooLarge(limit: Int)
  /// The uploaded file holds more audio than the server takes per upload
  /// (`serve --max-upload-seconds`), as its header says (413).
  case audioTooLong(seconds: Double, limit: Duration)
  /// The body arrived more slowly than `minimumRate` bytes per second on average after its
  /// first `grace` (408).
  case uploadTooSlow(minimumRate: Int, grace: Duration)
  /// The upload is not audio the server can read; `reason` is the decoder's (400).
  case unreadableAudio(reason: String)
  /// Every session place is taken; try again after `retryAfter` seconds (503).
  case noCapacity(retryAfter: Int)
  /// Recognition could not run or failed on the server's side (500).
  case recognitionFailed(String)
  /// The session ran past the longest the server allows (`serve --max-session-seconds`) and
  /// was stopped (503).
  case sessionTooLong(limit: Duration)
  /// The server shut down before the upload was transcribed (503).
  case shuttingDown(retryAfter: Int)
  /// The client closed the connection before the answer; nobody reads it (499, as nginx
  /// logs such requests).
  case clientGone

  /// The HTTP status the error is answered with.
  public var status: HTTPResponse.Status {
    switch self {
    case .unauthorized: .unauthorized
    case .notMultipart, .malformedMultipart, .missingField, .invalidField, .unreadableAudio:
      .badRequest
    case .uploadTooLarge, .audioTooLong: .contentTooLarge
    case .uploadTooSlow: .requestTimeout
    case .noCapacity, .sessionTooLong, .shuttingDown: .serviceUnavailable
    case .recognitionFailed: .internalServerError
    case .clientGone: .init(code: 499, reasonPhrase: "Client Closed Request")
    }
  }

  /// OpenAI's `type`: `invalid_request_error` for the client's mistakes, `server_error` else.
  public var type: String {
    switch self {
    case .noCapacity, .recognitionFailed, .sessionTooLong, .shuttingDown, .clientGone:
      "server_error"
    default: "invalid_request_error"
    }
  }

  /// The form field at fault, if one is.
  public var param: String? {
    switch self {
    case .missingField(let field), .invalidField(let field, _, _): field
    case .uploadTooLarge, .audioTooLong, .unreadableAudio: "file"
    default: nil
    }
  }

  /// A short machine-readable code, where OpenAI has one for the case.
  public var code: String? {
    switch self {
    case .unauthorized: "invalid_api_key"
    case .uploadTooLarge: "file_too_large"
    case .audioTooLong: "audio_too_long"
    case .uploadTooSlow: "upload_too_slow"
    case .unreadableAudio: "invalid_file_format"
    case .noCapacity: "server_busy"
    case .sessionTooLong: "session_too_long"
    case .shuttingDown: "server_shutting_down"
    default: nil
    }
  }
}

extension OpenAIError: HTTPResponseError {
  /// The error as OpenAI answers it: the status, a JSON body, and `Retry-After` or
  /// `WWW-Authenticate` where they apply.
  public func response(from request: Request, context: some RequestContext) throws -> Response {
    response()
  }

  /// The error as a response, without a request (middleware answers before routing).
  public func response() -> Response {
    var headers: HTTPFields = [.contentType: "application/json"]
    switch self {
    case .noCapacity(let retryAfter), .shuttingDown(let retryAfter):
      headers[.retryAfter] = "\(retryAfter)"
    case .unauthorized: headers[.wwwAuthenticate] = "Bearer"
    default: break
    }
    return Response(status: status, headers: headers, body: .init(byteBuffer: jsonBody))
  }

  /// The error in OpenAI's JSON shape.
  var jsonBody: ByteBuffer {
    Self.encode(
      OpenAIErrorBody(error: .init(message: message, type: type, param: param, code: code)))
  }

  /// An error body as JSON.
  static func encode(_ body: OpenAIErrorBody) -> ByteBuffer {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(body)) ?? Data(#"{"error":{}}"#.utf8)
    return ByteBuffer(bytes: data)
  }
}

/// The JSON an error is answered with; `param` and `code` are `null` when absent, as OpenAI
/// writes them.
struct OpenAIErrorBody: Codable, Equatable {
  struct Detail: Codable, Equatable {
    var message: String
    var type: String
    var param: String?
    var code: String?

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(message, forKey: .message)
      try container.encode(type, forKey: .type)
      try container.encode(param, forKey: .param)
      try container.encode(code, forKey: .code)
    }
  }

  var error: Detail
}

extension OpenAIError {
  /// The refusal of an upload the session core turned away; a 503 asks to wait `retryAfter`
  /// seconds.
  init(_ refusal: AdmissionRefusal, retryAfter: Int) {
    switch refusal {
    case .capacity: self = .noCapacity(retryAfter: retryAfter)
    case .shuttingDown: self = .shuttingDown(retryAfter: retryAfter)
    }
  }

  /// An upload's recognition problem: audio that cannot be read and an engine that is not
  /// installed are the client's (400), anything else the server's (500).
  init(_ problem: RecognitionProblem) {
    switch problem {
    case .unreadableAudio(let reason): self = .unreadableAudio(reason: reason)
    case .engineNotInstalled(let engine): self = .engineNotInstalled(engine)
    default: self = .recognitionFailed(problem.message)
    }
  }

  /// The upload's `model` names an engine this server cannot run: a 400 naming it.
  static func engineNotInstalled(_ engine: String) -> OpenAIError {
    .invalid("model", value: engine.lowercased(), expected: .installedEngine)
  }

  /// A field with a value the endpoint does not take; what it takes is worded in the catalogue.
  static func invalid(
    _ field: String, value: String, expected: ProtocolProblem.Expected
  ) -> OpenAIError {
    .invalidField(field, value: value, expected: expected.text)
  }
}
