import Hummingbird

/// Answers what the routes do not: 405 with `Allow` for a method a route does not take, and 404
/// in OpenAI's error shape for an unknown path under `/v1/`. (`HEAD` for every `GET` route is the
/// router's own `autoGenerateHeadEndpoints`.)
///
/// The methods each path takes are the router's own table (`Router.routes`): added to the router
/// after its routes, this middleware runs only for requests no route takes.
struct UnroutedRequestMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The methods each path takes (`HEAD` is implied by `GET`).
  let methods: [String: [HTTPRequest.Method]]

  /// The middleware for a router with `routes`.
  init(routes: [Router<Context>.RouteDescription]) {
    methods = Dictionary(grouping: routes) { $0.path.description }.mapValues { $0.map(\.method) }
  }

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var path = request.uri.path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    guard let allowed = methods[path] else {
      guard ErrorAnswer.isOpenAIPath(path) else { return try await next(request, context) }
      return Refusal(.noSuchPath(path, routes: openAIRoutes), path: path).response
    }
    // HEAD routes are made by the router for every GET route.
    if allowed.contains(request.method) || (request.method == .head && allowed.contains(.get)) {
      return try await next(request, context)
    }
    let allow = (allowed.contains(.get) ? allowed + [.head] : allowed)
      .map(\.rawValue).joined(separator: ", ")
    let refusal = RequestRefusal.methodNotAllowed(
      path: path, allowed: allow, method: request.method.rawValue)
    return Refusal(refusal, path: path).response
  }

  /// The routes of OpenAI's API, as a 404 lists them: `POST /v1/audio/transcriptions and GET
  /// /v1/models`.
  var openAIRoutes: String {
    methods.filter { ErrorAnswer.isOpenAIPath($0.key) }.sorted { $0.key < $1.key }
      .flatMap { path, methods in methods.map { "\($0.rawValue) \(path)" } }
      .joined(separator: " and ")
  }
}
