import Hummingbird

/// Turns away requests that do not carry the server's ``AccessToken`` with 401, before a route
/// reads anything of the request's body: the token policy of every HTTP route that needs it,
/// applied once, to the group that holds them.
///
/// Without a token (no `--token`) every request passes. The check and the refusal are the
/// server's one ``TokenCheck``: OpenAI's error JSON under `/v1/`, the same sentence as text
/// elsewhere, with `WWW-Authenticate: Bearer`; the token is never logged or echoed. Each refusal
/// is counted and logged as a rejected session (``SessionRejection/unauthorized``).
///
/// ```swift
/// router.group()
///   .add(middleware: AccessTokenMiddleware(check: core.tokenCheck, reject: reject))
/// ```
struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The check requests must pass.
  let check: TokenCheck
  /// Counts and logs a refusal: the path and the client's address (when known).
  let reject: @Sendable (_ path: String, _ remoteAddress: String?) -> Void

  /// Passes the request on when it carries the token; answers 401 otherwise.
  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let isAuthorized = check.authorizes(
      uri: request.uri.description, authorization: request.headers[.authorization],
      acceptsQueryToken: false)
    guard !isAuthorized else { return try await next(request, context) }
    reject(request.uri.path, RequestLoggingMiddleware.remoteAddress(of: context))
    return TokenCheck.refusal(path: request.uri.path).response
  }
}

extension SessionCore {
  /// The server's one check of a request's token (see ``TokenCheck``).
  public var tokenCheck: TokenCheck { TokenCheck(token: configuration.token) }

  /// Counts and logs a request refused for `reason` at `path`: the policies' one report.
  func refused(
    _ reason: SessionRejection
  ) -> @Sendable (_ path: String, _ remoteAddress: String?) -> Void {
    { [self] path, remoteAddress in reject(reason, endpoint: path, remoteAddress: remoteAddress) }
  }
}
