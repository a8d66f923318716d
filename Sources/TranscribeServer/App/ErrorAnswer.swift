import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// How the server answers an error it finds itself (a refused token or origin, a wrong method, an
/// unknown path): in OpenAI's error JSON under `/v1/`, where OpenAI's SDKs read it, and as the
/// message alone, one line of text, everywhere else.
enum ErrorAnswer {
  /// Whether `path` is OpenAI's API (`/v1` and below).
  static func isOpenAIPath(_ path: String) -> Bool {
    path == "/v1" || path.hasPrefix("/v1/")
  }

  /// The content type and body of `error` for a request to `path`.
  static func body(
    path: String, _ error: OpenAIErrorBody.Detail
  ) -> (contentType: String, body: ByteBuffer) {
    guard isOpenAIPath(path) else {
      return ("text/plain; charset=utf-8", ByteBuffer(string: error.message + "\n"))
    }
    return ("application/json", OpenAIError.encode(OpenAIErrorBody(error: error)))
  }
}

/// A refusal the server answers itself, wherever it is decided: a route's middleware, the
/// connection's gate below the HTTP decoder, or the first handler of a connection turned away.
/// One value, rendered by each layer: a Hummingbird ``response``, an HTTP ``head`` and ``body``
/// for NIO's encoder, or the raw ``bytes`` of the whole answer.
struct Refusal: Sendable {
  var status: HTTPResponse.Status
  var contentType = "text/plain; charset=utf-8"
  var body: ByteBuffer
  /// Headers besides the content type (`WWW-Authenticate`, `Retry-After`, `Allow`).
  var headers: [(name: String, value: String)] = []

  /// A refusal with `text` as its body.
  init(
    _ status: HTTPResponse.Status, text: String,
    headers: [(name: String, value: String)] = []
  ) {
    self.status = status
    self.body = ByteBuffer(string: text)
    self.headers = headers
  }

  /// `error` for a request to `path` (see ``ErrorAnswer``).
  init(
    _ status: HTTPResponse.Status, path: String, _ error: OpenAIErrorBody.Detail,
    headers: [(name: String, value: String)] = []
  ) {
    let answer = ErrorAnswer.body(path: path, error)
    self.status = status
    self.contentType = answer.contentType
    self.body = answer.body
    self.headers = headers
  }

  /// `refusal` as plain text, its sentence on a line.
  init(_ refusal: RequestRefusal) {
    self.init(refusal.status, text: refusal.sentence + "\n", headers: refusal.headers)
  }

  /// `refusal` for a request to `path`: in OpenAI's error JSON under `/v1/`, plain text
  /// elsewhere.
  init(_ refusal: RequestRefusal, path: String) {
    self.init(
      refusal.status, path: path,
      .init(
        message: refusal.sentence, type: "invalid_request_error", param: nil, code: refusal.code),
      headers: refusal.headers)
  }

  /// The refusal as a route's response.
  var response: Response {
    var fields: HTTPFields = [.contentType: contentType]
    for header in headers {
      if let name = HTTPField.Name(header.name) { fields[name] = header.value }
    }
    return Response(status: status, headers: fields, body: .init(byteBuffer: body))
  }

  /// The head of the refusal on a connection that closes after it.
  var head: HTTPResponseHead {
    var fields = HTTPHeaders(headers.map { ($0.name, $0.value) })
    fields.add(name: "Content-Type", value: contentType)
    fields.add(name: "Content-Length", value: String(body.readableBytes))
    fields.add(name: "Connection", value: "close")
    return HTTPResponseHead(
      version: .http1_1,
      status: HTTPResponseStatus(statusCode: status.code, reasonPhrase: status.reasonPhrase),
      headers: fields)
  }

  /// The whole answer as it goes on the wire, for a connection no HTTP encoder serves.
  var bytes: ByteBuffer {
    let head = self.head
    var text = "HTTP/1.1 \(head.status.code) \(head.status.reasonPhrase)\r\n"
    for (name, value) in head.headers { text += "\(name): \(value)\r\n" }
    var buffer = ByteBuffer(string: text + "\r\n")
    var body = self.body
    buffer.writeBuffer(&body)
    return buffer
  }
}

extension String {
  /// The text cut to `limit` characters, saying how many were left out: what a client sent, as
  /// the server repeats it in a log line or an answer.
  func cut(after limit: Int) -> String {
    guard count > limit else { return self }
    return "\(prefix(limit))… (\(count - limit) more characters)"
  }

  /// The text as a WebSocket close frame's reason: as many whole characters as fit in
  /// ``ServerConfiguration/closeReasonBytes`` bytes of UTF-8.
  var closeReason: String {
    var reason = ""
    for character in self {
      let bytes = String(character).utf8.count
      guard reason.utf8.count + bytes <= ServerConfiguration.closeReasonBytes else { break }
      reason.append(character)
    }
    return reason
  }
}
