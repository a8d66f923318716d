import Foundation
import Logging

/// The log of one recognition session (a WebSocket stream or an upload): a logger whose every
/// line carries the session's id, the client's address and the endpoint, one `info` line when
/// the session starts and one when it ends.
///
/// Nothing here ever logs a token or a query string: the endpoint is a path.
///
/// ```swift
/// let log = SessionLog(server.logger, endpoint: "/", remoteAddress: "127.0.0.1:50412")
/// log.started()
/// log.logger.debug("config", metadata: ["sample_rate": "16000"])
/// log.ended(.finished, audioSeconds: 12.5)
/// ```
public struct SessionLog: Sendable {
  /// The session's short random id (also in every line's `session` metadata).
  public let id: String
  /// The logger with the session's metadata, for anything else the session logs.
  public let logger: Logger

  /// A log for a new session at `endpoint` (a path such as `/` or `/v1/audio/transcriptions`)
  /// from `remoteAddress`.
  public init(
    _ base: Logger, endpoint: String, remoteAddress: String?, id: String = SessionLog.makeID()
  ) {
    self.id = id
    var logger = base
    logger[metadataKey: "session"] = .string(id)
    logger[metadataKey: "endpoint"] = .string(endpoint)
    if let remoteAddress {
      logger[metadataKey: "remote"] = .string(remoteAddress)
    }
    self.logger = logger
  }

  /// A new random id: eight hexadecimal digits.
  public static func makeID() -> String {
    let value = UInt32.random(in: .min ... .max)
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }

  /// Logs the start of the session (`info`), with anything worth knowing about it
  /// (e.g. `sample_rate`).
  public func started(_ metadata: Logger.Metadata = [:]) {
    logger.info("session started", metadata: metadata)
  }

  /// Logs the end of the session (`info`; `warning` when it ended in an error) with how much
  /// audio it decoded and how it ended.
  public func ended(_ outcome: SessionOutcome, audioSeconds: Double) {
    var metadata: Logger.Metadata = [
      "outcome": .string(outcome.label),
      "audio_seconds": .string(String(format: "%.2f", audioSeconds)),
    ]
    if let detail = outcome.detail {
      metadata["detail"] = .string(detail)
    }
    logger.log(level: outcome.isError ? .warning : .info, "session ended", metadata: metadata)
  }

  /// Logs (`warning`) that a session was turned away before it started.
  public static func rejected(
    _ base: Logger, endpoint: String, remoteAddress: String?, reason: SessionRejection
  ) {
    var logger = base
    logger[metadataKey: "endpoint"] = .string(endpoint)
    if let remoteAddress {
      logger[metadataKey: "remote"] = .string(remoteAddress)
    }
    logger.warning("session rejected", metadata: ["reason": .string(reason.rawValue)])
  }
}

/// Why the server closed a connection that had not sent a request; the raw value is the
/// `reason` in logs and in `transcribe_closed_connections_total`.
public enum ConnectionClosure: String, Sendable, Equatable, CaseIterable {
  /// The request's headers did not arrive within the header deadline (408): a client that
  /// connected and sent nothing, or too little.
  case headerTimeout = "header_timeout"
  /// The server shut down before a request arrived.
  case shutdown
}

/// Why a session was turned away; the raw value is the `reason` in logs and in
/// `transcribe_rejected_sessions_total`.
public enum SessionRejection: String, Sendable, Equatable, CaseIterable {
  /// Every session place was taken (WebSocket close 1013, HTTP 503).
  case capacity
  /// The token was missing or wrong (401).
  case unauthorized = "token"
  /// The server was shutting down.
  case shuttingDown = "shutdown"
  /// The request came from a web page the server does not allow (403).
  case origin
}

/// How a session ended, for its last log line.
public enum SessionOutcome: Sendable, Equatable {
  /// The client ended the stream (`{"eof" : 1}`) or the upload was transcribed.
  case finished
  /// The client went away without ending the stream.
  case clientClosed
  /// The client stopped answering the WebSocket's pings, and the server closed it.
  case pingTimeout
  /// No audio arrived for the idle timeout.
  case idleTimeout
  /// Audio trickled in, too little for the idle timeout to start again.
  case tooLittleAudio
  /// The session ran past the longest allowed.
  case tooLong
  /// The server shut down while the session ran.
  case shutdown
  /// The client sent something the protocol does not allow (the message says what).
  case badInput(String)
  /// Recognition failed (the message says how).
  case failed(String)

  /// A short label: `finished`, `client_closed`, `ping_timeout`, `idle_timeout`, `too_little_audio`,
  /// `too_long`,
  /// `shutdown`, `bad_input` or `failed`.
  public var label: String {
    switch self {
    case .finished: "finished"
    case .clientClosed: "client_closed"
    case .pingTimeout: "ping_timeout"
    case .idleTimeout: "idle_timeout"
    case .tooLittleAudio: "too_little_audio"
    case .tooLong: "too_long"
    case .shutdown: "shutdown"
    case .badInput: "bad_input"
    case .failed: "failed"
    }
  }

  /// The message of `badInput` and `failed`.
  public var detail: String? {
    switch self {
    case .badInput(let message), .failed(let message): message
    default: nil
    }
  }

  /// Whether the session ended because something went wrong on the server's side.
  public var isError: Bool {
    if case .failed = self { return true }
    return false
  }
}
