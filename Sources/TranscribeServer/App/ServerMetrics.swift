import Foundation
import Metrics
import Prometheus
import SpeechClient

/// What the server measures, published at `GET /metrics` in Prometheus' text format.
///
/// Every name starts with `transcribe_`. The metrics are made through swift-metrics with a
/// factory of the server's own (a Prometheus registry per server), so two servers in one process
/// (tests) never share counts and nothing is bootstrapped globally.
///
/// ```swift
/// let metrics = ServerMetrics()
/// metrics.sessionStarted()
/// metrics.decoded(audioSeconds: 4.2, processingSeconds: 1.1, engine: "moonshine")
/// print(metrics.exposition())
/// ```
public final class ServerMetrics: Sendable {
  /// The registry `/metrics` prints.
  public let registry: PrometheusCollectorRegistry
  private let factory: PrometheusMetricsFactory
  private let activeSessions: Metrics.Meter
  private let finalLatency: Metrics.Timer

  /// Creates the metrics in a registry of their own.
  public init() {
    let registry = PrometheusCollectorRegistry()
    var factory = PrometheusMetricsFactory(registry: registry)
    // Final results should arrive well within a second of the end of speech.
    factory.defaultDurationHistogramBuckets = [
      .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
      .milliseconds(750), .seconds(1), .milliseconds(1500), .seconds(2), .seconds(5),
    ]
    // Processing time over audio time: below 1 keeps up with real time. (The factory's default
    // value buckets start at 5, which would put every session in the first bucket.)
    for name in [Self.realTimeFactorName, Self.protocolRealTimeFactorName] {
      factory.valueHistogramBuckets[name] = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 5]
    }
    self.registry = registry
    self.factory = factory
    activeSessions = Metrics.Meter(label: "transcribe_active_sessions", factory: factory)
    finalLatency = Metrics.Timer(
      label: "transcribe_final_result_latency_seconds", factory: factory)
    // The usual reasons are listed from the start (at 0), so a dashboard sees the series before
    // the first rejection.
    for reason in SessionRejection.allCases {
      _ = rejectedSessions(reason: reason.rawValue)
    }
    for engine in SpeechRecognitionRequest.EngineName.allCases {
      _ = audioSeconds(engine: engine.rawValue)
      _ = realTimeFactor(engine: engine.rawValue)
    }
  }

  private static let realTimeFactorName = "transcribe_real_time_factor"
  private static let protocolRealTimeFactorName = "transcribe_protocol_real_time_factor"

  /// The registry hands back the same series for the same name and labels.
  private func audioSeconds(engine: String) -> Metrics.FloatingPointCounter {
    Metrics.FloatingPointCounter(
      label: "transcribe_audio_seconds_decoded_total", dimensions: [("engine", engine)],
      factory: factory)
  }

  private func realTimeFactor(engine: String) -> Metrics.Recorder {
    Metrics.Recorder(
      label: Self.realTimeFactorName, dimensions: [("engine", engine)], aggregate: true,
      factory: factory)
  }

  private func rejectedSessions(reason: String) -> Metrics.Counter {
    // The registry hands back the same counter for the same name and labels.
    Metrics.Counter(
      label: "transcribe_rejected_sessions_total", dimensions: [("reason", reason)],
      factory: factory)
  }

  /// A connection the server closed before it sent a request: `header_timeout` when its
  /// request's headers did not arrive in time, `shutdown` when the server stopped meanwhile
  /// (`transcribe_closed_connections_total`).
  public func connectionClosed(_ reason: ConnectionClosure) {
    Metrics.Counter(
      label: "transcribe_closed_connections_total", dimensions: [("reason", reason.rawValue)],
      factory: factory
    ).increment()
  }

  /// A session ended with `outcome`: the `outcome` label of `transcribe_ended_sessions_total`
  /// is its log label (`finished`, `client_closed`, `idle_timeout`, `too_little_audio`, …).
  public func sessionEnded(_ outcome: SessionOutcome) {
    Metrics.Counter(
      label: "transcribe_ended_sessions_total", dimensions: [("outcome", outcome.label)],
      factory: factory
    ).increment()
  }

  /// A session (stream or upload) began.
  public func sessionStarted() {
    activeSessions.increment()
  }

  /// A session ended, however it ended.
  public func sessionEnded() {
    activeSessions.decrement()
  }

  /// A session was turned away: the `reason` label of `transcribe_rejected_sessions_total` is
  /// the rejection's raw value (`capacity`, `token`, `shutdown`, `origin`).
  public func sessionRejected(_ reason: SessionRejection) {
    rejectedSessions(reason: reason.rawValue).increment()
  }

  /// A session decoded `audioSeconds` of audio in `processingSeconds` of wall time with
  /// `engine` (`moonshine`, `pocketsphinx`): the `engine` label of the decoded-audio counter and
  /// the real-time factor histogram.
  public func decoded(audioSeconds seconds: Double, processingSeconds: Double, engine: String) {
    guard seconds > 0 else { return }
    audioSeconds(engine: engine).increment(by: seconds)
    realTimeFactor(engine: engine).record(processingSeconds / seconds)
  }

  /// A final result arrived `latency` after the end of the speech it ends.
  public func finalResultDelivered(latency: Duration) {
    finalLatency.recordNanoseconds(
      latency.components.seconds * 1_000_000_000 + latency.components.attoseconds / 1_000_000_000)
  }

  // MARK: - Per protocol

  /// A session of `protocolName` (`wyoming`) began: `transcribe_protocol_sessions_total`
  /// with its `protocol` label.
  public func protocolSessionStarted(_ protocolName: String) {
    Metrics.Counter(
      label: "transcribe_protocol_sessions_total", dimensions: [("protocol", protocolName)],
      factory: factory
    ).increment()
  }

  /// An error event of `protocolName` ended a session: `transcribe_protocol_errors_total` with
  /// its `protocol` and `code` labels.
  public func protocolError(_ protocolName: String, code: String) {
    Metrics.Counter(
      label: "transcribe_protocol_errors_total",
      dimensions: [("protocol", protocolName), ("code", code)], factory: factory
    ).increment()
  }

  /// A final transcript of `protocolName` went out `latency` after the event that ended its
  /// audio: `transcribe_protocol_final_latency_seconds` with its `protocol` label.
  public func protocolFinalDelivered(_ protocolName: String, latency: Duration) {
    Metrics.Timer(
      label: "transcribe_protocol_final_latency_seconds", dimensions: [("protocol", protocolName)],
      factory: factory
    ).recordNanoseconds(
      latency.components.seconds * 1_000_000_000 + latency.components.attoseconds / 1_000_000_000)
  }

  /// A session of `protocolName` (`vosk`, `wyoming`) decoded `audioSeconds` of audio in
  /// `processingSeconds` of wall time: `transcribe_protocol_audio_seconds_decoded_total` and the
  /// real-time factor histogram `transcribe_protocol_real_time_factor`, with its `protocol`
  /// label (the engine's series are ``decoded(audioSeconds:processingSeconds:engine:)``'s).
  public func protocolDecoded(
    _ protocolName: String, audioSeconds seconds: Double, processingSeconds: Double
  ) {
    guard seconds > 0 else { return }
    Metrics.FloatingPointCounter(
      label: "transcribe_protocol_audio_seconds_decoded_total",
      dimensions: [("protocol", protocolName)], factory: factory
    ).increment(by: seconds)
    Metrics.Recorder(
      label: Self.protocolRealTimeFactorName, dimensions: [("protocol", protocolName)],
      aggregate: true, factory: factory
    ).record(processingSeconds / seconds)
  }

  /// The Prometheus text exposition of every metric.
  public func exposition() -> String {
    registry.emitToString()
  }
}
