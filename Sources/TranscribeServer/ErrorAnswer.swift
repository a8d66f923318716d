import Foundation
import Hummingbird

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

extension String {
  /// The text cut to `limit` characters, saying how many were left out: what a client sent, as
  /// the server repeats it in a log line or an answer.
  func cut(after limit: Int) -> String {
    guard count > limit else { return self }
    return "\(prefix(limit))… (\(count - limit) more characters)"
  }
}
