import Testing

@testable import TranscribeServer

@Suite struct ServerMetricsTests {
  /// The exposition's lines for one metric family, in order, without its `# TYPE` line.
  private func samples(_ name: String, in exposition: String) -> [String] {
    exposition.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") || $0.hasPrefix(name + "_")
    }
  }

  @Test func everyMetricIsListedWithItsPrometheusTypeBeforeAnyEvent() {
    let exposition = ServerMetrics().exposition()
    let types = Set(exposition.split(separator: "\n").filter { $0.hasPrefix("# TYPE") })
    #expect(
      types == [
        "# TYPE transcribe_active_sessions gauge",
        "# TYPE transcribe_audio_seconds_decoded_total counter",
        "# TYPE transcribe_real_time_factor histogram",
        "# TYPE transcribe_final_result_latency_seconds histogram",
        "# TYPE transcribe_rejected_sessions_total counter",
      ])
    #expect(
      samples("transcribe_active_sessions", in: exposition) == ["transcribe_active_sessions 0.0"])
    #expect(
      Set(samples("transcribe_rejected_sessions_total", in: exposition)) == [
        #"transcribe_rejected_sessions_total{reason="capacity"} 0"#,
        #"transcribe_rejected_sessions_total{reason="token"} 0"#,
        #"transcribe_rejected_sessions_total{reason="shutdown"} 0"#,
        #"transcribe_rejected_sessions_total{reason="origin"} 0"#,
      ])
  }

  @Test func activeSessionsGoUpAndDown() {
    let metrics = ServerMetrics()
    metrics.sessionStarted()
    metrics.sessionStarted()
    metrics.sessionStarted()
    metrics.sessionEnded()
    #expect(
      samples("transcribe_active_sessions", in: metrics.exposition()) == [
        "transcribe_active_sessions 2.0"
      ])
  }

  @Test func decodedAudioPerProtocolAddsUpAndItsRealTimeFactorIsBucketed() {
    let metrics = ServerMetrics()
    metrics.protocolDecoded("wyoming", audioSeconds: 4, processingSeconds: 1)  // 0.25
    metrics.protocolDecoded("wyoming", audioSeconds: 0, processingSeconds: 1)  // ignored
    metrics.protocolDecoded("vosk", audioSeconds: 2, processingSeconds: 1.5)  // 0.75
    let exposition = metrics.exposition()
    #expect(
      Set(samples("transcribe_protocol_audio_seconds_decoded_total", in: exposition)) == [
        #"transcribe_protocol_audio_seconds_decoded_total{protocol="wyoming"} 4.0"#,
        #"transcribe_protocol_audio_seconds_decoded_total{protocol="vosk"} 2.0"#,
      ])
    let wyoming = samples("transcribe_protocol_real_time_factor", in: exposition).filter {
      $0.contains(#"protocol="wyoming""#)
    }
    #expect(
      wyoming.contains(
        #"transcribe_protocol_real_time_factor_bucket{protocol="wyoming",le="0.2"} 0"#))
    #expect(
      wyoming.contains(
        #"transcribe_protocol_real_time_factor_bucket{protocol="wyoming",le="0.3"} 1"#))
    #expect(wyoming.contains(#"transcribe_protocol_real_time_factor_count{protocol="wyoming"} 1"#))
  }

  @Test func decodedAudioAddsUpAndTheRealTimeFactorIsBucketed() {
    let metrics = ServerMetrics()
    metrics.decoded(audioSeconds: 4, processingSeconds: 1, engine: "pocketsphinx")  // 0.25
    metrics.decoded(audioSeconds: 2.5, processingSeconds: 2, engine: "pocketsphinx")  // 0.8
    // nothing decoded: ignored
    metrics.decoded(audioSeconds: 0, processingSeconds: 1, engine: "pocketsphinx")
    metrics.decoded(audioSeconds: 10, processingSeconds: 1, engine: "moonshine")  // 0.1
    let exposition = metrics.exposition()
    #expect(
      Set(samples("transcribe_audio_seconds_decoded_total", in: exposition)) == [
        #"transcribe_audio_seconds_decoded_total{engine="pocketsphinx"} 6.5"#,
        #"transcribe_audio_seconds_decoded_total{engine="moonshine"} 10.0"#,
        // Every engine's series exists from the start, at 0 until it decodes.
        #"transcribe_audio_seconds_decoded_total{engine="whisper"} 0"#,
      ])
    let pocketsphinx = samples("transcribe_real_time_factor", in: exposition).filter {
      $0.contains(#"engine="pocketsphinx""#)
    }
    #expect(
      pocketsphinx == [
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="0.05"} 0"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="0.1"} 0"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="0.2"} 0"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="0.3"} 1"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="0.5"} 1"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="0.75"} 1"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="1.0"} 2"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="1.5"} 2"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="2.0"} 2"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="5.0"} 2"#,
        #"transcribe_real_time_factor_bucket{engine="pocketsphinx",le="+Inf"} 2"#,
        #"transcribe_real_time_factor_sum{engine="pocketsphinx"} 1.05"#,
        #"transcribe_real_time_factor_count{engine="pocketsphinx"} 2"#,
      ])
    #expect(
      samples("transcribe_real_time_factor", in: exposition).contains(
        #"transcribe_real_time_factor_bucket{engine="moonshine",le="0.1"} 1"#))
  }

  @Test func finalResultLatencyIsAHistogramInSeconds() {
    let metrics = ServerMetrics()
    metrics.finalResultDelivered(latency: .milliseconds(300))
    metrics.finalResultDelivered(latency: .milliseconds(1200))
    let lines = samples("transcribe_final_result_latency_seconds", in: metrics.exposition())
    #expect(lines.contains(#"transcribe_final_result_latency_seconds_bucket{le="0.25"} 0"#))
    #expect(lines.contains(#"transcribe_final_result_latency_seconds_bucket{le="0.5"} 1"#))
    #expect(lines.contains(#"transcribe_final_result_latency_seconds_bucket{le="1.0"} 1"#))
    #expect(lines.contains(#"transcribe_final_result_latency_seconds_bucket{le="1.5"} 2"#))
    #expect(lines.contains(#"transcribe_final_result_latency_seconds_bucket{le="+Inf"} 2"#))
    #expect(lines.contains("transcribe_final_result_latency_seconds_sum 1.5"))
    #expect(lines.contains("transcribe_final_result_latency_seconds_count 2"))
  }

  @Test func rejectionsAreCountedPerReason() {
    let metrics = ServerMetrics()
    metrics.sessionRejected(.capacity)
    metrics.sessionRejected(.capacity)
    metrics.sessionRejected(.unauthorized)
    metrics.sessionRejected(.shuttingDown)
    #expect(
      Set(samples("transcribe_rejected_sessions_total", in: metrics.exposition())) == [
        #"transcribe_rejected_sessions_total{reason="capacity"} 2"#,
        #"transcribe_rejected_sessions_total{reason="token"} 1"#,
        #"transcribe_rejected_sessions_total{reason="shutdown"} 1"#,
        #"transcribe_rejected_sessions_total{reason="origin"} 0"#,
      ])
  }

  @Test func twoServersNeverShareCounts() {
    let first = ServerMetrics()
    let second = ServerMetrics()
    first.sessionStarted()
    #expect(
      samples("transcribe_active_sessions", in: second.exposition()) == [
        "transcribe_active_sessions 0.0"
      ])
  }
}
