import Hummingbird

/// `GET /metrics`: the Prometheus text exposition of ``ServerMetrics``.
///
/// When the server has a token, scrapers must send it too (`authorization: {credentials: …}` in
/// Prometheus' scrape configuration): the counts say how much the service is used, and unlike
/// `/healthz` and `/readyz` nothing outside needs them to route traffic.
struct MetricsEndpoint: Sendable {
  /// The content type Prometheus' text format 0.0.4 is served with.
  static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  let metrics: ServerMetrics
  let token: AccessToken?

  func response(to request: Request) -> Response {
    let isAuthorized = TokenCheck(token: token).authorizes(
      uri: request.uri.description, authorization: request.headers[.authorization],
      acceptsQueryToken: false)
    guard isAuthorized else { return TokenCheck.refusalResponse(path: request.uri.path) }
    return Response(
      status: .ok,
      headers: [.contentType: Self.contentType, .cacheControl: "no-store"],
      body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
  }
}
