import Foundation
import Hummingbird

/// What `GET /readyz` answers: whether the model is loaded and sessions are left.
///
/// `200` with `"status": "ready"` when new sessions would be accepted; otherwise `503` with
/// `"preparing"` (the model is still loading), `"failed"` (it could not be loaded; the log says
/// why), `"full"` (every session place is taken) or `"stuck"` (a place is free but every decoder
/// of an engine has been busy for longer than ``ServerConfiguration/stuckDecoderAge``, with work
/// of sessions that are over, so a new stream would wait), with `Retry-After` for those that
/// pass.
///
/// ```json
/// {"engines":["moonshine","pocketsphinx"],"model_loaded":true,"sessions":{"active":1,"limit":2},
///  "status":"ready"}
/// ```
public struct ReadinessReport: Sendable, Equatable, Codable {
  /// How ready the server is.
  public enum Status: String, Sendable, Codable {
    /// New sessions are accepted.
    case ready
    /// `prepare` has not finished.
    case preparing
    /// `prepare` failed; the server will not become ready.
    case failed
    /// Every session place is taken.
    case full
    /// A place is free, but every decoder of an engine is still busy with sessions that are
    /// over (a huge phrase list compiling for a client that left, say): new streams would wait.
    case stuck
  }

  /// The sessions running and the most that may run at once.
  public struct Sessions: Sendable, Equatable, Codable {
    /// Sessions running now.
    public var active: Int
    /// ``ServerConfiguration/maxSessions``.
    public var limit: Int

    /// Creates the session counts.
    public init(active: Int, limit: Int) {
      self.active = active
      self.limit = limit
    }
  }

  /// How ready the server is.
  public var status: Status
  /// Whether `prepare` has finished successfully.
  public var modelLoaded: Bool
  /// The sessions running and the limit.
  public var sessions: Sessions
  /// The engines the server runs, its default first (the default's model is the one loaded
  /// before the server is ready; another engine loads on its first session).
  public var engines: [String]

  enum CodingKeys: String, CodingKey {
    case status
    case modelLoaded = "model_loaded"
    case sessions
    case engines
  }

  /// Creates a report from its parts.
  public init(status: Status, modelLoaded: Bool, sessions: Sessions, engines: [String] = []) {
    self.status = status
    self.modelLoaded = modelLoaded
    self.sessions = sessions
    self.engines = engines
  }

  /// The report for a readiness and a session limiter, as they are now, the server's engines,
  /// and whether every decoder of one of them has been busy for long (see ``Status/stuck``).
  public init(
    readiness: ServerReadiness, sessions limiter: SessionLimiter, engines: [String] = [],
    decodersStuck: Bool = false
  ) {
    self.engines = engines
    let state = readiness.state
    let active = limiter.activeCount
    modelLoaded = state == .prepared
    sessions = Sessions(active: active, limit: limiter.limit)
    switch state {
    case .preparing: status = .preparing
    case .failed: status = .failed
    case .prepared:
      status = active >= limiter.limit ? .full : decodersStuck ? .stuck : .ready
    }
  }

  /// Seconds a client is asked to wait before asking again, or `nil` when waiting will not help.
  public var retryAfterSeconds: Int? {
    switch status {
    case .ready, .failed: nil
    case .preparing: 1
    case .full, .stuck: 5
    }
  }

  /// The report as the `/readyz` response.
  public func response() throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var body = try encoder.encode(self)
    body.append(UInt8(ascii: "\n"))
    var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
    if let retryAfterSeconds {
      headers[.retryAfter] = String(retryAfterSeconds)
    }
    return Response(
      status: status == .ready ? .ok : .serviceUnavailable, headers: headers,
      body: .init(byteBuffer: ByteBuffer(bytes: body)))
  }
}
