import Hummingbird

/// Answers what the routes do not: 405 with `Allow` for a method a route does not take, and 404
/// in OpenAI's error shape for an unknown path under `/v1/`. (`HEAD` for every `GET` route is the
/// router's own `autoGenerateHeadEndpoints`.)
struct MethodMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The methods each path takes (`HEAD` is implied by `GET`).
  static var routes: [String: [HTTPRequest.Method]] {
    [
      "/": [.get], "/healthz": [.get], "/readyz": [.get], "/metrics": [.get],
      "/v1/models": [.get], "/v1/audio/transcriptions": [.post],
    ]
  }

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var path = request.uri.path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    guard let methods = Self.routes[path] else {
      guard ErrorAnswer.isOpenAIPath(path) else { return try await next(request, context) }
      return Self.error(
        .notFound, path: path, code: "unknown_url",
        message: "There is no \(path) here: this server answers POST /v1/audio/transcriptions "
          + "and GET /v1/models.")
    }
    // HEAD routes are made by the router for every GET route.
    if methods.contains(request.method) || (request.method == .head && methods.contains(.get)) {
      return try await next(request, context)
    }
    let allowed = (methods.contains(.get) ? methods + [.head] : methods)
      .map(\.rawValue).joined(separator: ", ")
    var response = Self.error(
      .methodNotAllowed, path: path, code: "method_not_allowed",
      message: "\(path) takes \(allowed), not \(request.method.rawValue).")
    response.headers[.allow] = allowed
    return response
  }

  /// An error in OpenAI's shape under `/v1/`, as text elsewhere.
  static func error(
    _ status: HTTPResponse.Status, path: String, code: String, message: String
  ) -> Response {
    let answer = ErrorAnswer.body(
      path: path, .init(message: message, type: "invalid_request_error", param: nil, code: code))
    return Response(
      status: status, headers: [.contentType: answer.contentType],
      body: .init(byteBuffer: answer.body))
  }
}
