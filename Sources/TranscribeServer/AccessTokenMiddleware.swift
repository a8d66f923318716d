import Hummingbird

/// Turns away requests that do not carry the server's ``AccessToken`` with 401, before a route
/// reads anything of the request's body.
///
/// Without a token (no `--token`) every request passes. A rejection is counted in
/// ``ServerMetrics`` and answered in OpenAI's error shape with `WWW-Authenticate: Bearer`; the
/// token is never logged or echoed.
///
/// ```swift
/// router.group("v1")
///   .add(middleware: AccessTokenMiddleware(token: configuration.token, metrics: metrics))
/// ```
public struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The token requests must carry, or `nil` to let every request through.
  public let token: AccessToken?
  /// Whether `?token=TOKEN` is accepted too (a browser's WebSocket cannot set headers).
  public let acceptsQueryToken: Bool
  /// Where rejections are counted.
  public let metrics: ServerMetrics?

  /// Creates the middleware; `acceptsQueryToken` also lets `?token=TOKEN` through.
  public init(token: AccessToken?, acceptsQueryToken: Bool = false, metrics: ServerMetrics? = nil) {
    self.token = token
    self.acceptsQueryToken = acceptsQueryToken
    self.metrics = metrics
  }

  /// Passes the request on when it carries the token; answers 401 otherwise.
  public func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let token, !token.authorizes(request, acceptsQueryToken: acceptsQueryToken) else {
      return try await next(request, context)
    }
    metrics?.sessionRejected(reason: "token")
    return OpenAIError.unauthorized.response()
  }
}

extension AccessToken {
  /// Whether `request` carries the token: `Authorization: Bearer TOKEN`, or with
  /// `acceptsQueryToken` also `?token=TOKEN`.
  public func authorizes(_ request: Request, acceptsQueryToken: Bool = false) -> Bool {
    authorizes(
      authorization: request.headers[.authorization],
      queryToken: acceptsQueryToken ? request.uri.queryParameters.get("token") : nil)
  }
}
