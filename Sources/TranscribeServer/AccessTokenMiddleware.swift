import Hummingbird

/// Turns away requests that do not carry the server's ``AccessToken`` with 401, before a route
/// reads anything of the request's body.
///
/// Without a token (no `--token`) every request passes. The check and the refusal are the
/// server's one ``TokenCheck``: OpenAI's error JSON under `/v1/`, the same sentence as text
/// elsewhere, with `WWW-Authenticate: Bearer`; the token is never logged or echoed. Each refusal
/// is reported to `onRefusal` (the server counts and logs it as a rejected session).
///
/// ```swift
/// router.group("v1")
///   .add(middleware: AccessTokenMiddleware(token: configuration.token, metrics: metrics))
/// ```
public struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The check requests must pass.
  public let check: TokenCheck
  /// Whether `?token=TOKEN` is accepted too (a browser's WebSocket cannot set headers).
  public let acceptsQueryToken: Bool
  /// Called with the path and the client's address (when known) of each refused request.
  let onRefusal: @Sendable (_ path: String, _ remoteAddress: String?) -> Void

  /// The token requests must carry, or `nil` to let every request through.
  public var token: AccessToken? { check.token }

  /// Creates the middleware; `acceptsQueryToken` also lets `?token=TOKEN` through, and
  /// refusals are counted in `metrics`.
  public init(token: AccessToken?, acceptsQueryToken: Bool = false, metrics: ServerMetrics? = nil) {
    self.check = TokenCheck(token: token)
    self.acceptsQueryToken = acceptsQueryToken
    self.onRefusal = { _, _ in metrics?.sessionRejected(.unauthorized) }
  }

  /// The middleware of `server`: its token, its rejections.
  init(server: TranscriptionServer) {
    self.check = server.tokenCheck
    self.acceptsQueryToken = false
    self.onRefusal = { path, remoteAddress in
      server.reject(.unauthorized, endpoint: path, remoteAddress: remoteAddress)
    }
  }

  /// Passes the request on when it carries the token; answers 401 otherwise.
  public func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let isAuthorized = check.authorizes(
      uri: request.uri.description, authorization: request.headers[.authorization],
      acceptsQueryToken: acceptsQueryToken)
    guard !isAuthorized else { return try await next(request, context) }
    let remoteAddress = (context as? ServerRequestContext)?.remoteDescription
    onRefusal(request.uri.path, remoteAddress)
    return TokenCheck.refusalResponse(path: request.uri.path)
  }
}

extension AccessToken {
  /// Whether `request` carries the token: `Authorization: Bearer TOKEN`, or with
  /// `acceptsQueryToken` also `?token=TOKEN`.
  public func authorizes(_ request: Request, acceptsQueryToken: Bool = false) -> Bool {
    TokenCheck(token: self).authorizes(
      uri: request.uri.description, authorization: request.headers[.authorization],
      acceptsQueryToken: acceptsQueryToken)
  }
}
