import Logging

/// What a connection must pass before a request reaches the routes: the connection limit, and
/// for a WebSocket upgrade (which never reaches the HTTP routes and their middleware) the
/// origin and token policies, refusals counted and logged by the session core.
struct ConnectionGate: Sendable {
  let tokenCheck: TokenCheck
  let originCheck: OriginCheck
  let connections: OpenConnections
  let maxConnections: Int
  /// What a 503 asks the client to wait (``ServerConfiguration/retryAfterSeconds``).
  let retryAfterSeconds: Int
  let requestHeaderTimeout: Duration
  /// The longest request target read (``ServerConfiguration/maxRequestTargetBytes``).
  let maxRequestTargetBytes: Int
  /// The largest message a stream reads (``ServerConfiguration/maxFrameBytes``).
  let maxFrameBytes: Int
  /// The largest frame read at all (``ServerConfiguration/frameReadLimit``).
  let frameReadLimit: Int
  let logger: Logger
  /// Counts and logs a refusal.
  let reject:
    @Sendable (_ reason: SessionRejection, _ path: String, _ remoteAddress: String?) -> Void
  /// Counts and logs a connection closed before its request.
  let close: @Sendable (_ reason: ConnectionClosure, _ remoteAddress: String?) -> Void

  init(_ core: SessionCore) {
    tokenCheck = core.tokenCheck
    originCheck = core.originCheck
    connections = core.connections
    maxConnections = core.configuration.maxConnections
    retryAfterSeconds = core.configuration.retryAfterSeconds
    requestHeaderTimeout = core.configuration.requestHeaderTimeout
    maxRequestTargetBytes = core.configuration.maxRequestTargetBytes
    maxFrameBytes = core.configuration.maxFrameBytes
    frameReadLimit = core.configuration.frameReadLimit
    logger = core.logger
    reject = { reason, path, remoteAddress in
      core.reject(reason, endpoint: path, remoteAddress: remoteAddress)
    }
    close = { reason, remoteAddress in
      core.connectionClosed(reason, remoteAddress: remoteAddress)
    }
  }
}
