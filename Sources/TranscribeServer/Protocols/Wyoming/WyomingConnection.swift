import Architecture
import Foundation
import Logging
import NIOCore
import SpeechClient
import Synchronization

/// The socket side of one Wyoming connection: ``StreamHost`` runs it with ``WyomingCodec``.
///
/// It knows nothing of sockets: it reads ``WyomingInbound`` from any sequence and writes
/// through a closure, so tests drive it without a network.
struct WyomingConnection: Sendable {
  let core: SessionCore
  let remoteAddress: String?

  /// The endpoint in logs and the `protocol` label in metrics.
  static let protocolName = "wyoming"

  /// Serves one connection; returns once it is over (the caller closes it).
  func run<Inbound: AsyncSequence & Sendable>(
    inbound: Inbound, write: @escaping @Sendable (ByteBuffer) async throws -> Void
  ) async where Inbound.Element == WyomingInbound {
    // TCP tells of a client gone only through reading and writing: no watcher for it.
    let host = StreamHost(core: core, remoteAddress: remoteAddress, connection: nil)
    try? await host.serve(inbound, codec: WyomingCodec(core: core), write: write)
  }
}

/// Home Assistant's Wyoming protocol as ``StreamHost`` runs it: the events the framing read,
/// for ``WyomingSession``, its events written (the close is the caller's), and the latency of
/// transcripts, the errors and the real-time factor measured.
struct WyomingCodec: StreamCodec {
  typealias Session = WyomingSession
  typealias Frame = ByteBuffer

  let core: SessionCore
  private let lastEvent = LastEvent()
  private var busy = DecoderBusyTime()

  init(core: SessionCore) {
    self.core = core
  }

  var endpoint: String { WyomingConnection.protocolName }
  var protocolName: String { WyomingConnection.protocolName }
  var countsSessions: Bool { true }

  var reading: StreamLoop<WyomingSession>.Reading<WyomingInbound> {
    let lastEvent = self.lastEvent
    return .init(
      message: { inbound in
        switch inbound {
        case .event(let event):
          lastEvent.mark()
          return (.received(event), false)
        case .malformed(let problem):
          return (.malformed(problem), true)
        }
      },
      end: .clientFinishedSending, failure: { _ in .stream(.clientLeft) })
  }

  func session(id: String) -> (state: WyomingSession.State, reducer: WyomingSession) {
    (WyomingSession.State(), WyomingSession(limits: core.configuration))
  }

  func frames(for output: WyomingSession.Output, in state: WyomingSession.State) -> [Frame] {
    // The close is the caller's, once the connection is over.
    guard case .event(let event) = output else { return [] }
    return [event.bytes]
  }

  func wrote(_ output: WyomingSession.Output, in state: WyomingSession.State) {
    guard case .event(let event) = output else { return }
    switch event.type {
    case "transcript":
      if let latency = lastEvent.elapsed {
        core.metrics.protocolFinalDelivered(protocolName, latency: latency)
      }
    case "error":
      core.metrics.protocolError(
        protocolName, code: event.data["code"]?.stringValue ?? "unknown")
    default:
      break
    }
  }

  mutating func observe(_ state: WyomingSession.State) {
    busy.observe(state)
  }

  /// Counts the connection's decoded audio and real-time factor: by engine, as every protocol
  /// does, and with `protocol="wyoming"`.
  func finish(_ final: WyomingSession.State, consumedSeconds: Double) -> Double {
    let total = final.decodedSeconds
    guard total > 0 else { return total }
    let processingSeconds = busy.processing.timeInterval
    for (engine, seconds) in final.decoded where seconds > 0 {
      // The processing time is shared among the engines in proportion to their audio.
      core.metrics.decoded(
        audioSeconds: seconds, processingSeconds: processingSeconds * seconds / total,
        engine: engine.rawValue)
    }
    core.metrics.protocolDecoded(
      protocolName, audioSeconds: total, processingSeconds: processingSeconds)
    return total
  }

  func refusal(_ problem: SessionProblem) -> (frames: [Frame], waitsForMessage: Bool) {
    let refusal = WyomingProblem.session(problem)
    core.metrics.protocolError(protocolName, code: refusal.code)
    return ([refusal.event.bytes], false)
  }
}

/// How long the decoder had audio of the connection waiting (pushed and not yet reported
/// decoded), from the session states the host sees: the processing time of the real-time
/// factor. A decoder keeping up with a real-time client is busy only briefly after each chunk.
struct DecoderBusyTime {
  private var busySince: ContinuousClock.Instant?
  /// The time audio waited for the decoder.
  private(set) var processing = Duration.zero

  mutating func observe(_ state: WyomingSession.State, at now: ContinuousClock.Instant = .now) {
    if let busySince { processing += now - busySince }
    busySince = (state.utterance?.pushedSamples ?? 0) > state.decodedSamples ? now : nil
  }
}

/// When the connection's last event arrived: a final transcript's latency counts from it.
private final class LastEvent: Sendable {
  private let instant = Mutex<ContinuousClock.Instant?>(nil)

  func mark() { instant.withLock { $0 = .now } }

  var elapsed: Duration? { instant.withLock { $0.map { .now - $0 } } }
}
