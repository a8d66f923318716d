import Hummingbird

/// One request policy (the origin, the token) applied as a route middleware: a request the
/// policy refuses gets the policy's ``Refusal`` before a route reads anything of its body, and
/// is counted and logged as a rejected session. The connection gate asks the same policies the
/// same question for WebSocket upgrades (see ``ConnectionGate``).
///
/// ```swift
/// router.add(middleware: PolicyMiddleware(.origin, core: core) { core.originCheck.refusal(of: $0) })
/// ```
struct PolicyMiddleware<Context: RequestContext>: RouterMiddleware {
  /// Why a refused request is rejected, in metrics and logs.
  let reason: SessionRejection
  /// The refusal of a request, or `nil` to let it pass.
  let refusal: @Sendable (Request) -> Refusal?
  /// Counts and logs a refusal: the reason, the path and the client's address (when known).
  let reject: @Sendable (SessionRejection, _ path: String, _ remoteAddress: String?) -> Void

  /// The policy `refusal`, refusals reported to `core`.
  init(
    _ reason: SessionRejection, core: SessionCore,
    refusal: @escaping @Sendable (Request) -> Refusal?
  ) {
    self.reason = reason
    self.refusal = refusal
    self.reject = { core.reject($0, endpoint: $1, remoteAddress: $2) }
  }

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let refusal = refusal(request) else { return try await next(request, context) }
    reject(reason, request.uri.path, RequestLoggingMiddleware.remoteAddress(of: context))
    return refusal.response
  }
}

extension SessionCore {
  /// The server's one check of a request's token (see ``TokenCheck``).
  public var tokenCheck: TokenCheck { TokenCheck(token: configuration.token) }

  /// Which web pages may use the server (see ``OriginCheck``).
  public var originCheck: OriginCheck { OriginCheck(allowed: configuration.allowedOrigins) }
}
