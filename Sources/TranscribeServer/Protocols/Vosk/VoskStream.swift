import Architecture
import Foundation
import HummingbirdWebSocket
import Logging
import SpeechClient
import Synchronization

/// The socket side of one vosk WebSocket stream: ``StreamHost`` runs it with ``VoskCodec``.
///
/// ``run(inbound:outbound:)`` hands the host the socket's messages and a writer; tests hand
/// ``serve(_:write:)`` a stream of messages and collect what it writes.
struct VoskStream {
  let core: SessionCore
  let logger: Logger
  let client: RequestClient

  /// The `protocol` label of the stream's metrics.
  static let protocolName = "vosk"

  /// Serves one stream on a WebSocket; returns once it is closed.
  func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
    // A message just over the limit reaches the session, which answers it clearly; larger
    // frames are refused below it (see `ServerConfiguration.frameReadLimit`).
    try await serve(inbound.messages(maxSize: core.configuration.frameReadLimit)) {
      output, configuration in
      try await Self.write(output, configuration: configuration, to: outbound)
    }
  }

  /// Serves one stream: reads `messages`, writes with `write`; returns once it is closed. A
  /// failure to read is thrown once the session has closed the stream, so the protocol layer
  /// closes with the code it stands for (e.g. 1009).
  func serve<Messages: AsyncSequence & Sendable>(
    _ messages: Messages,
    write: (VoskSession.Output, VoskStreamConfiguration) async throws -> Void
  ) async throws where Messages.Element == WebSocketMessage {
    let host = StreamHost(
      core: core, remoteAddress: client.address, connection: client.connection)
    try await host.serve(messages, codec: VoskCodec(core: core)) { frame in
      try await write(frame.output, frame.configuration)
    }
  }

  private static func write(
    _ output: VoskSession.Output, configuration: VoskStreamConfiguration,
    to outbound: WebSocketOutboundWriter
  ) async throws {
    switch output {
    case .reply(let reply):
      try await outbound.writeTextMessage(reply.json(configuration: configuration))
    case .close(nil):
      try await outbound.close(.normalClosure, reason: nil)
    case .close(let error?):
      try await outbound.close(.init(codeNumber: Int(error.closeCode)), reason: error.closeReason)
    }
  }
}

/// vosk-server's protocol as ``StreamHost`` runs it: text and binary messages for
/// ``VoskSession``, its outputs written with the stream's configuration, and the latency of
/// final results and the real-time factor measured.
struct VoskCodec: StreamCodec {
  typealias Session = VoskSession
  /// An output and the configuration it is written with.
  typealias Frame = (output: VoskSession.Output, configuration: VoskStreamConfiguration)

  let core: SessionCore
  var measure = StreamMeasurements()

  init(core: SessionCore) {
    self.core = core
  }

  var endpoint: String { "/" }
  var protocolName: String { VoskStream.protocolName }
  var countsSessions: Bool { false }

  var reading: StreamLoop<VoskSession>.Reading<WebSocketMessage> {
    let limits = core.configuration
    return .init(
      message: { message in
        // The JSON is read here, by the reader, off the main actor.
        switch message {
        case .text(let text): (.message(VoskMessage.read(text, limits: limits)), false)
        case .binary(let buffer): (.audio(buffer), false)
        }
      },
      end: .stream(.clientLeft), failure: { .stream(.readFailed("\($0)")) })
  }

  func session(id: String) -> (state: VoskSession.State, reducer: VoskSession) {
    (VoskSession.State(), VoskSession(limits: core.configuration))
  }

  func frames(for output: VoskSession.Output, in state: VoskSession.State) -> [Frame] {
    [(output, state.configuration)]
  }

  mutating func wrote(_ output: VoskSession.Output, in state: VoskSession.State) {
    if case .reply(.result(let words)) = output, let latency = measure.latency(of: words) {
      core.metrics.finalResultDelivered(latency: latency)
    }
  }

  mutating func observe(_ state: VoskSession.State) {
    measure.observe(state)
  }

  func finish(_ final: VoskSession.State, consumedSeconds: Double) -> Double {
    if final.recognition != nil {
      core.metrics.decoded(
        audioSeconds: consumedSeconds, processingSeconds: measure.processing.timeInterval,
        engine: engineName(final.configuration))
      core.metrics.protocolDecoded(
        protocolName, audioSeconds: consumedSeconds,
        processingSeconds: measure.processing.timeInterval)
    }
    return consumedSeconds
  }

  func refusal(_ problem: SessionProblem) -> (frames: [Frame], waitsForMessage: Bool) {
    let error = WebSocketSessionError.session(problem)
    return ([(.reply(.error(error.message)), .init()), (.close(error), .init())], true)
  }

  /// The engine a stream runs on, as metrics label it: pocketsphinx for a phrase list (a
  /// grammar) when the server's default is pocketsphinx, the server's default otherwise
  /// (Moonshine favours a phrase list's phrases as hotwords).
  private func engineName(_ configuration: VoskStreamConfiguration) -> String {
    if let phrases = configuration.phraseList, !phrases.isEmpty,
      core.configuration.engines.first != .moonshine
    {
      return SpeechRecognitionRequest.EngineName.pocketsphinx.rawValue
    }
    return core.configuration.engines.first?.rawValue ?? "default"
  }
}

/// What a stream measures for metrics, from the session states it sees: when each stretch of
/// audio arrived (for the latency of final results) and how long replies were waited for (the
/// decoding time of the real-time factor).
struct StreamMeasurements {
  /// When the audio up to `end` seconds arrived.
  private var arrivals: [(end: TimeInterval, at: ContinuousClock.Instant)] = []
  private var pushed: TimeInterval = 0
  private var pendingSince: (number: Int, at: ContinuousClock.Instant)?
  /// The time replies were waited for.
  private(set) var processing = Duration.zero

  mutating func observe(_ state: VoskSession.State) {
    let now = ContinuousClock.now
    let duration = Double(state.pushedSamples) / Double(state.configuration.sampleRate)
    if duration > pushed {
      pushed = duration
      arrivals.append((duration, now))
      if arrivals.count > ServerConfiguration.measuredArrivals { arrivals.removeFirst() }
    }
    switch (pendingSince, state.pending) {
    case (nil, let pending?):
      pendingSince = (pending.number, now)
    case (let since?, let pending) where pending?.number != since.number:
      processing += now - since.at
      pendingSince = pending.map { ($0.number, now) }
    default:
      break
    }
  }

  /// How long after its audio arrived a result ending with `words` went out.
  mutating func latency(of words: [TranscriptionSegment]) -> Duration? {
    guard let last = words.last else { return nil }
    let end = last.timestamp + last.duration
    defer { arrivals.removeAll { $0.end < end } }
    return arrivals.first { $0.end >= end }.map { ContinuousClock.now - $0.at }
  }
}
