import Foundation
import HTTPTypes

/// Why a session cannot start, or ends other than by its client: the server's one catalogue of
/// them, each defined here once with what the client is told and how the session's log line
/// reads. What every protocol shares is a case of its own; a client's mistake in one protocol's
/// messages is ``badInput(_:)``, worded in ``ProtocolProblem``.
///
/// A protocol only renders a problem in its own shape: vosk's `{"error": …}` and a close code
/// (``WebSocketSessionError``), a Realtime `error` event (``RealtimeError/init(closing:)``), a
/// Wyoming `error` event (``WyomingProblem``), OpenAI's status and JSON (``OpenAIError``), and
/// the refusals of a request before any session (``RequestRefusal``) plain HTTP or OpenAI's
/// JSON under `/v1/` (``Refusal``).
///
/// ```swift
/// let problem = SessionProblem.idle(limits.idleTimeout)
/// problem.text               // "no audio for 30 s; the stream was closed"
/// problem.deliversLastWords  // true: the client did nothing wrong
/// ```
enum SessionProblem: Error, Equatable, Sendable {
  /// Every session place is taken.
  case busy
  /// The server has its most connections open (``ServerConfiguration/maxConnections``).
  case tooManyConnections(limit: Int)
  /// The server is shutting down.
  case shuttingDown
  /// No audio for the idle timeout.
  case idle(Duration)
  /// Audio arrived during the idle timeout, but less than renews it: a trickle that would
  /// otherwise hold a session place.
  case tooLittleAudio(received: Duration, within: Duration, renewal: Duration)
  /// The session ran longer than the maximum.
  case tooLong(Duration)
  /// Recognition failed; the reason says how (``RecognitionProblem/message``).
  case recognitionFailed(String)
  /// A message over the limit (``ServerConfiguration/maxFrameBytes``): `bytes` long or, when
  /// it was not read at all (``ServerConfiguration/frameReadLimit``), longer than `bytes`.
  case messageTooLarge(bytes: Int, limit: Int, isUnread: Bool = false)
  /// A mistake in the client's messages, in its protocol's own terms (``ProtocolProblem``).
  case badInput(ProtocolProblem)

  /// What the client is told, in a sentence that names the fix.
  var text: String {
    switch self {
    case .busy:
      "every session place is taken; try again later"
    case .tooManyConnections(let limit):
      "the server has \(limit) connections open, its most; try again shortly"
    case .shuttingDown:
      "the server is shutting down; try again later, on another instance if there is one"
    case .idle(let timeout):
      "no audio for \(timeout.spokenSeconds); the stream was closed"
    case .tooLittleAudio(let received, let within, let renewal):
      "too little audio: \(received.spokenSeconds) in the last \(within.spokenSeconds), and "
        + "a stream must send \(renewal.spokenSeconds) of audio within each "
        + "\(within.spokenSeconds); send audio as it is recorded"
    case .tooLong(let limit):
      "the session reached its maximum length of \(limit.spokenSeconds); start a new one"
    case .recognitionFailed(let reason):
      "recognition failed: \(reason)"
    case .messageTooLarge(let bytes, let limit, let isUnread):
      "a message of \(isUnread ? "more than " : "")\(bytes) bytes is over the limit of \(limit) "
        + "bytes; send smaller chunks"
    case .badInput(let problem):
      problem.text
    }
  }

  /// How a session that ends with this problem reads in its log.
  var outcome: SessionOutcome {
    switch self {
    case .idle: .idleTimeout
    case .tooLittleAudio: .tooLittleAudio
    case .tooLong: .tooLong
    case .shuttingDown: .shutdown
    case .busy, .tooManyConnections, .recognitionFailed: .failed(text)
    case .messageTooLarge, .badInput: .badInput(text)
    }
  }

  /// Whether a session that ends with this problem first gets its last words: a limit or a
  /// shutdown (the client did nothing wrong), not a failure.
  var deliversLastWords: Bool {
    switch self {
    case .idle, .tooLittleAudio, .tooLong, .shuttingDown: true
    case .busy, .tooManyConnections, .recognitionFailed, .messageTooLarge, .badInput: false
    }
  }

  /// The text as a sentence of its own, for answers written in sentences (HTTP's plain text):
  /// a capital letter first, a period last.
  var sentence: String {
    return text.prefix(1).uppercased() + text.dropFirst() + "."
  }

  /// Whether the client went quiet (so it is not waiting for an answer).
  var isIdle: Bool {
    switch self {
    case .idle, .tooLittleAudio: true
    default: false
    }
  }

  /// The refusal of a session the session core turned away.
  init(_ refusal: AdmissionRefusal) {
    switch refusal {
    case .capacity: self = .busy
    case .shuttingDown: self = .shuttingDown
    }
  }

  /// A recognition that gave no words to trust.
  init(_ problem: RecognitionProblem) {
    self = .recognitionFailed(problem.message)
  }
}

/// Why the server refused a request, or a connection's WebSocket frames, before any session:
/// the catalogue's other half, beside ``SessionProblem``, that every way in shares. Each is
/// defined here once, with its sentence, its HTTP status and OpenAI's error code; ``Refusal``
/// answers it as plain text, or in OpenAI's JSON under `/v1/`, and an upgraded WebSocket in
/// its protocol's words (``FrameRefusal``).
///
/// ```swift
/// RequestRefusal.originNotAllowed("https://example.com").status  // 403
/// ```
enum RequestRefusal: Equatable, Sendable {
  /// The request's headers did not arrive within ``ServerConfiguration/requestHeaderTimeout``.
  case headersTooSlow(Duration)
  /// A WebSocket upgrade that is not its connection's first request.
  case upgradeNotFirst
  /// A URL over ``ServerConfiguration/maxRequestTargetBytes``.
  case urlTooLong(length: Int, limit: Int)
  /// Headers over the HTTP parser's limits (``ServerConfiguration/parserHeaderBytes``).
  case headersTooLarge
  /// A `Content-Length` that does not fit the body.
  case invalidContentLength
  /// Not HTTP/1.0 or HTTP/1.1.
  case unsupportedHTTPVersion
  /// Bytes the HTTP parser cannot read (its error).
  case unreadable(String)
  /// A path under `/v1/` no route serves (`routes`: the ones it has, for the sentence).
  case noSuchPath(String, routes: String)
  /// A method the path does not take (`allowed`: the ones it does, for `Allow`).
  case methodNotAllowed(path: String, allowed: String, method: String)
  /// A web page of another origin (``OriginCheck``).
  case originNotAllowed(String)
  /// No token, or a wrong one (``TokenCheck``).
  case unauthorized
  /// WebSocket frames that break the protocol (the violation).
  case webSocketProtocolViolation(WebSocketViolation)
  /// A plain HTTP request to a path that only takes a WebSocket (Realtime's).
  case webSocketRequired(path: String, upgrade: String)

  /// What the client is told, as it is written: a sentence that names the fix (a WebSocket
  /// protocol error, which goes into a close frame's reason too, is a short phrase without a
  /// full stop, as it always was).
  var sentence: String {
    switch self {
    case .headersTooSlow(let timeout):
      "The request's headers did not arrive within \(timeout); send the whole request at once."
    case .upgradeNotFirst:
      "A WebSocket upgrade must be the first request of its connection: open a new connection "
        + "for the stream."
    case .urlTooLong(let length, let limit):
      "The request's URL is \(length) bytes long; the server reads at most \(limit). Send long "
        + "values in the body."
    case .headersTooLarge:
      "The request's headers are too large (at most "
        + "\(ServerConfiguration.parserHeaderBytes >> 10) KiB in all, and "
        + "\(ServerConfiguration.parserHeaderFields) fields)."
    case .invalidContentLength:
      "The request's Content-Length is not a valid length for its body."
    case .unsupportedHTTPVersion:
      "The server speaks HTTP/1.0 and HTTP/1.1 (and WebSocket through an upgrade)."
    case .unreadable(let error):
      "The request is not HTTP/1.1 the server can read (\(error))."
    case .noSuchPath(let path, let routes):
      "There is no \(path) here: this server answers \(routes)."
    case .methodNotAllowed(let path, let allowed, let method):
      "\(path) takes \(allowed), not \(method)."
    case .originNotAllowed(let origin):
      "Requests from the web page at \(origin) are not allowed: open the page this server "
        + "serves, or start the server with --allow-origin \(origin)."
    case .unauthorized:
      "Missing or wrong token: send `Authorization: Bearer TOKEN` with the server's --token "
        + "(the API key of OpenAI's SDKs; a browser's WebSocket may use ?token=TOKEN)."
    case .webSocketProtocolViolation(let violation):
      "WebSocket protocol error: \(violation.text)"
    case .webSocketRequired(let path, let upgrade):
      "\(path) is a WebSocket endpoint: open a WebSocket to \(upgrade) (this server runs "
        + "transcription sessions only)."
    }
  }

  /// The HTTP status of the answer.
  var status: HTTPResponse.Status {
    switch self {
    case .headersTooSlow: .requestTimeout
    case .upgradeNotFirst, .invalidContentLength, .unreadable: .badRequest
    case .urlTooLong: .uriTooLong
    case .headersTooLarge: .requestHeaderFieldsTooLarge
    case .unsupportedHTTPVersion: .httpVersionNotSupported
    case .noSuchPath: .notFound
    case .methodNotAllowed: .methodNotAllowed
    case .originNotAllowed: .forbidden
    case .unauthorized: .unauthorized
    case .webSocketProtocolViolation, .webSocketRequired: .badRequest
    }
  }

  /// OpenAI's error `code` for it, as an answer under `/v1/` carries it.
  var code: String {
    switch self {
    case .headersTooSlow: "request_timeout"
    case .upgradeNotFirst, .invalidContentLength, .unreadable, .unsupportedHTTPVersion:
      "invalid_request"
    case .urlTooLong: "url_too_long"
    case .headersTooLarge: "headers_too_large"
    case .noSuchPath: "unknown_url"
    case .methodNotAllowed: "method_not_allowed"
    case .originNotAllowed: "origin_not_allowed"
    case .unauthorized: "invalid_api_key"
    case .webSocketProtocolViolation: "websocket_protocol_error"
    case .webSocketRequired: "websocket_required"
    }
  }

  /// The headers the answer carries besides its content type: `Allow`, `WWW-Authenticate`.
  var headers: [(name: String, value: String)] {
    switch self {
    case .methodNotAllowed(_, let allowed, _): [("Allow", allowed)]
    case .unauthorized: [("WWW-Authenticate", "Bearer")]
    default: []
    }
  }
}

/// How a client's WebSocket frames broke RFC 6455 (``RequestRefusal/webSocketProtocolViolation(_:)``).
enum WebSocketViolation: Equatable, Sendable {
  /// A ping, pong or close frame in fragments.
  case fragmentedControlFrame
  /// A ping, pong or close frame over ``ServerConfiguration/controlFramePayloadBytes``.
  case controlFrameTooLong
  /// A data frame without a mask.
  case unmasked
  /// A reserved bit (`RSV1`, `RSV2`, `RSV3`) with no extension agreed.
  case reservedBit(String)
  /// A text or binary frame while a fragmented message was unfinished.
  case messageInsideFragmented
  /// A continuation frame with no message begun.
  case orphanContinuation
  /// A close frame with a payload of one byte.
  case oneByteClose
  /// A close frame with a code an endpoint may not send.
  case closeCode(UInt16)
  /// A frame with a reserved opcode.
  case reservedOpcode(Int)

  var text: String {
    switch self {
    case .fragmentedControlFrame: "a ping, pong or close frame was fragmented"
    case .controlFrameTooLong:
      "a ping, pong or close frame carried more than "
        + "\(ServerConfiguration.controlFramePayloadBytes) bytes"
    case .unmasked: "a data frame from the client was not masked"
    case .reservedBit(let bit): "a frame had \(bit) set, and no extension was agreed"
    case .messageInsideFragmented:
      "a new message began inside a fragmented one (a continuation frame was due)"
    case .orphanContinuation: "a continuation frame came with no message to continue"
    case .oneByteClose: "a close frame had a 1-byte payload (a code takes 2)"
    case .closeCode(let code): "a close frame had code \(code), which is not one to send"
    case .reservedOpcode(let opcode): "a frame had the reserved opcode \(opcode)"
    }
  }
}

extension Duration {
  /// The duration as the server's answers say it: `10 s`, `0.3 s`.
  var spokenSeconds: String {
    let seconds = timeInterval
    return seconds == seconds.rounded()
      ? "\(Int(seconds)) s" : String(format: "%.3g s", seconds)
  }
}
