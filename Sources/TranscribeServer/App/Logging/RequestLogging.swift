import Hummingbird
import Logging

/// Gives every HTTP request's logger the endpoint and the client's address, and logs each
/// request's status and duration at `debug` (health checks and scrapes would flood `info`).
///
/// Only the path is logged, never the query string, so a `?token=` never reaches a log.
struct RequestLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var context = context
    context.logger[metadataKey: "endpoint"] = .string(request.uri.path)
    if let remote = Self.remoteAddress(of: context) {
      context.logger[metadataKey: "remote"] = .string(remote)
    }
    let started = ContinuousClock.now
    do {
      let response = try await next(request, context)
      context.logger.debug(
        "\(request.method) \(request.uri.path) \(response.status.code)",
        metadata: ["seconds": .string((ContinuousClock.now - started).secondsDescription)])
      return response
    } catch {
      let status = (error as? any HTTPResponseError)?.status.code ?? 500
      context.logger.debug(
        "\(request.method) \(request.uri.path) \(status)",
        metadata: ["seconds": .string((ContinuousClock.now - started).secondsDescription)])
      throw error
    }
  }

  /// The client's `address:port` when the request context knows it.
  static func remoteAddress(of context: Context) -> String? {
    (context as? any RemoteAddressRequestContext)?.remoteAddress
      .flatMap(ServerRequestContext.describe)
  }
}
