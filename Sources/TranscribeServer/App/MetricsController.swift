import Hummingbird

/// `GET /metrics`: the Prometheus text exposition of ``ServerMetrics``.
///
/// It is added to the group of routes that need the token when the server has one
/// (`authorization: {credentials: …}` in Prometheus' scrape configuration): the counts say how
/// much the service is used, and unlike `/healthz` and `/readyz` nothing outside needs them to
/// route traffic.
struct MetricsController: Sendable {
  /// The content type Prometheus' text format 0.0.4 is served with.
  static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  let metrics: ServerMetrics

  func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
    router.get("metrics") { _, _ in
      response()
    }
  }

  func response() -> Response {
    Response(
      status: .ok,
      headers: [.contentType: Self.contentType, .cacheControl: "no-store"],
      body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
  }
}
