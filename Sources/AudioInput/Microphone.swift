import CPulseAudio
import Foundation

/// A PulseAudio record stream: 16 kHz mono s16le from the default or a named capture source.
///
/// The fragment size is set small (``PulseAudioSettings/fragmentDuration``), because the
/// server's default is about 2 s and every word would show up that late. Connecting gives up
/// after ``PulseAudioSettings/connectTimeout``; once recording, a watchdog fails the read when
/// no audio arrived for ``PulseAudioSettings/audioTimeout`` (a stopped or hung server sends
/// nothing and reports nothing). All timeouts run on the monotonic clock.
///
/// ```swift
/// let stop = StopSignal()
/// let microphone = try Microphone(device: nil, settings: PulseAudioSettings(), stopSignal: stop)
/// while let samples = try microphone.read() { decode(samples) }  // until stop.stop()
/// ```
public final class Microphone: SampleSource {
  private let connection: PulseConnection
  private let stream: OpaquePointer
  private let sourceDescription: String
  /// The source's name, or `nil` for the server's default source.
  private let device: String?
  private let audioTimeout: Duration
  private let stopSignal: StopSignal
  private var leftoverByte: UInt8?
  private var drainStarted: ContinuousClock.Instant?
  private var isDrained = false
  /// The longest a stop may spend decoding audio captured before it.
  private static let drainLimit = Duration.seconds(5)

  /// Connects to the server and starts recording.
  ///
  /// - Parameters:
  ///   - device: the capture source's server name; `nil` for the server's default source.
  ///   - settings: the server and the timeouts.
  ///   - stopSignal: raising it ends connecting and reading at once, from any thread.
  /// - Throws: `AudioInputFailure.audioServerUnreachable` when no server answers in time,
  ///   `AudioInputFailure.captureSourceMissing` for an unknown source.
  public init(
    device: String?, settings: PulseAudioSettings, stopSignal: StopSignal
  ) throws(AudioInputFailure) {
    let connectTimeout = settings.connectTimeout
    let deadline = ContinuousClock.now + connectTimeout
    let connection: PulseConnection
    do {
      connection = try PulseConnection(
        server: settings.server, timeout: connectTimeout, stopSignal: stopSignal)
    } catch {
      throw error.failure
    }
    let sourceDescription = device.map { "capture source \($0)" } ?? "default capture source"

    var spec = pa_sample_spec(
      format: PA_SAMPLE_S16LE, rate: UInt32(SampleFormat.sampleRate), channels: 1)
    guard let stream = pa_stream_new(connection.context, "transcribe", &spec, nil) else {
      throw .audioDeviceFailed("could not create a record stream: \(connection.errorText)")
    }
    let bytesPerSecond = Double(SampleFormat.sampleRate * 2)
    let fragment = UInt32(
      max(2, (settings.fragmentDuration.timeInterval * bytesPerSecond).rounded()))
    var attributes = pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max,
      fragsize: fragment & ~1)
    guard pa_stream_connect_record(stream, device, &attributes, PA_STREAM_ADJUST_LATENCY) >= 0
    else {
      pa_stream_unref(stream)
      throw .audioDeviceFailed("could not record: \(connection.errorText)")
    }
    self.connection = connection
    self.stream = stream
    self.sourceDescription = sourceDescription
    self.device = device
    self.audioTimeout = settings.audioTimeout
    self.stopSignal = stopSignal

    try connection.runUntil(deadline: deadline, stopSignal: stopSignal) {
      () throws(AudioInputFailure) -> Bool in
      switch pa_stream_get_state(stream) {
      case PA_STREAM_READY: return true
      case PA_STREAM_FAILED, PA_STREAM_TERMINATED: throw streamFailure()
      default: return false
      }
    } onTimeout: {
      .audioServerUnreachable(
        "\(connection.serverDescription) did not start recording within "
          + "\(PulseConnection.seconds(connectTimeout)) (is it hung or stopped?)")
    }
  }

  deinit {
    pa_stream_disconnect(stream)
    pa_stream_unref(stream)
  }

  /// Unknown: the server converts whatever the source records to the 16 kHz asked for.
  public var recordedSampleRate: Int? { nil }

  /// A microphone has no end.
  public var progress: Double? { nil }

  /// After a stop, the audio captured before it is still delivered.
  public var drainsWhenStopped: Bool { true }

  /// Waits for the next audio the server sends.
  ///
  /// - Throws: `AudioInputFailure.audioDeviceFailed` when the server goes away, the source
  ///   stops, or no audio came for ``PulseAudioSettings/audioTimeout``.
  public func read() throws(AudioInputFailure) -> [Int16]? {
    if stopSignal.isStopped { return drain() }
    // The watchdog counts from here, not from the last audio: audio that arrived while the
    // caller was busy (loading the model, decoding) waits in the socket until the next poll.
    let waitingSince = ContinuousClock.now
    let wake = UncheckedSendable(connection.mainloop)
    return try stopSignal.withWaker({ pa_mainloop_wakeup(wake.value) }) {
      () throws(AudioInputFailure) -> [Int16]? in
      while !stopSignal.isStopped {
        if let samples = try takeAudio() { return samples }
        guard pa_context_get_state(connection.context) == PA_CONTEXT_READY else {
          throw .audioDeviceFailed(
            "\(connection.serverDescription) went away: \(connection.errorText)")
        }
        guard pa_stream_get_state(stream) == PA_STREAM_READY else {
          throw streamFailure()
        }
        let silence = ContinuousClock.now - waitingSince
        if silence >= audioTimeout {
          throw .audioDeviceFailed(
            "no audio from the \(sourceDescription) for \(PulseConnection.seconds(audioTimeout)) "
              + "(is the audio server hung or stopped?)")
        }
        guard connection.iterate(timeout: min(.milliseconds(100), audioTimeout - silence)) else {
          throw .audioDeviceFailed("polling the \(connection.serverDescription) failed")
        }
      }
      return drain()
    }
  }

  /// After a stop: the audio captured before it, which may still wait in the socket or the
  /// server when decoding lags behind, then `nil`.
  ///
  /// Draining ends when a short poll brings no more audio (the backlog is gone; new audio comes
  /// only every fragment), or after ``drainLimit`` if the decoder is slower than real time and
  /// the backlog never empties.
  private func drain() -> [Int16]? {
    let now = ContinuousClock.now
    let started = drainStarted ?? now
    drainStarted = started
    guard !isDrained, !stopSignal.discardsPendingAudio,
      now - started < Self.drainLimit,
      pa_context_get_state(connection.context) == PA_CONTEXT_READY
    else {
      isDrained = true
      return nil
    }
    if let samples = try? takeAudio() { return samples }
    connection.iterate(timeout: .milliseconds(20))
    if let samples = try? takeAudio() { return samples }
    isDrained = true
    return nil
  }

  /// Copies out whatever audio the stream holds; `nil` when it holds none.
  private func takeAudio() throws(AudioInputFailure) -> [Int16]? {
    var samples: [Int16] = []
    while pa_stream_readable_size(stream) > 0 {
      var data: UnsafeRawPointer?
      var length = 0
      guard pa_stream_peek(stream, &data, &length) >= 0 else {
        throw .audioDeviceFailed(
          "reading from the \(sourceDescription) failed: \(connection.errorText)")
      }
      if length == 0 { break }
      if let data {
        var bytes = UnsafeRawBufferPointer(start: data, count: length)[...]
        if let first = leftoverByte, let second = bytes.first {
          samples.append(
            Int16(littleEndian: Int16(bitPattern: UInt16(first) | UInt16(second) << 8)))
          bytes = bytes.dropFirst()
          leftoverByte = nil
        }
        let whole = bytes.count / 2
        samples.reserveCapacity(samples.count + whole)
        let raw = UnsafeRawBufferPointer(rebasing: bytes)
        for index in 0..<whole {
          samples.append(
            Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)))
        }
        if bytes.count % 2 == 1 { leftoverByte = bytes.last }
      }
      // A hole (data == nil) is dropped like data.
      pa_stream_drop(stream)
    }
    return samples.isEmpty ? nil : samples
  }

  private func streamFailure() -> AudioInputFailure {
    let code = connection.errorCode
    if code == Int32(PA_ERR_NOENTITY.rawValue) {
      guard let device else {
        return .captureSourceMissing("\(connection.serverDescription) has no default source")
      }
      return connection.sourceNotFound(device, deadline: ContinuousClock.now + .seconds(1))
    }
    if pa_context_get_state(connection.context) != PA_CONTEXT_READY {
      return .audioDeviceFailed(
        "\(connection.serverDescription) went away: \(connection.errorText)")
    }
    return .audioDeviceFailed("the \(sourceDescription) stopped: \(connection.errorText)")
  }
}
