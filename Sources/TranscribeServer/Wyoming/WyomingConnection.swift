import Architecture
import Foundation
import Logging
import NIOCore
import SpeechClient
import Synchronization

/// The socket side of one Wyoming connection: admits it through the session core, runs a
/// ``WyomingSession`` store and does what its state says.
///
/// In the loop every protocol shares (``SessionHost``), it reads an event only when the session
/// allows one, sends each as an action, and writes the session's outbox in order; everything the connection decides is the session's. It knows
/// nothing of sockets: it reads ``WyomingInbound`` from any sequence and writes through a
/// closure, so tests drive it without a network.
struct WyomingConnection: Sendable {
  let core: SessionCore
  let remoteAddress: String?

  /// The endpoint in logs and the `protocol` label in metrics.
  static let protocolName = "wyoming"

  /// Serves one connection; returns once it is over (the caller closes it).
  func run<Inbound: AsyncSequence & Sendable>(
    inbound: Inbound, write: @escaping @Sendable (ByteBuffer) async throws -> Void
  ) async where Inbound.Element == WyomingInbound {
    let core = self.core
    let session: AdmittedSession
    let shutdownNotice: ClientConnection
    do throws(AdmissionRefusal) {
      (session, shutdownNotice) = try core.admitStream(
        endpoint: Self.protocolName, remoteAddress: remoteAddress)
    } catch {
      let problem = WyomingProblem(error)
      core.metrics.protocolError(Self.protocolName, code: problem.code)
      try? await write(problem.event.bytes)
      return
    }
    core.metrics.protocolSessionStarted(Self.protocolName)
    let limits = core.configuration
    let (inbox, _, _) = AudioInbox.live()
    let store = await core.makeSessionStore(WyomingSession.State(), audioInbox: inbox) {
      WyomingSession(limits: limits)
    }
    let host = SessionHost(
      store: store, outbox: \.outbox, written: \.written, allowedMessages: \.allowedEvents,
      ending: \.ending, start: .start, acknowledge: { .written(through: $0) },
      clientLeft: .clientLeft, shutdown: .shutdown)
    let lastEvent = LastEvent()
    var busy = DecoderBusyTime()

    // TCP tells of a client gone only through reading and writing: no watcher for it.
    let (final, _) = await host.run(
      inbound,
      reading: .init(
        message: { inbound in
          switch inbound {
          case .event(let event):
            lastEvent.mark()
            return (.received(event), false)
          case .malformed(let problem):
            return (.malformed(problem), true)
          }
        },
        end: .clientFinishedSending, failure: { _ in .clientLeft }),
      session: session, shutdownNotice: shutdownNotice, connection: nil
    ) { state in
      busy.observe(state)
    } write: { output, _ in
      // The close is the caller's, once the connection is over.
      guard case .event(let event) = output else { return }
      try await write(event.bytes)
      switch event.type {
      case "transcript":
        if let latency = lastEvent.elapsed {
          core.metrics.protocolFinalDelivered(Self.protocolName, latency: latency)
        }
      case "error":
        core.metrics.protocolError(
          Self.protocolName, code: event.data["code"]?.stringValue ?? "unknown")
      default:
        break
      }
    }

    reportDecoding(final, processing: busy.processing)
    let outcome: SessionOutcome =
      switch final.ending {
      case .clientDone?: .finished
      case .problem(let problem)?: problem.outcome
      case .clientGone?, nil: .clientClosed
      }
    session.end(outcome, audioSeconds: final.decodedSeconds)
  }
}

extension WyomingConnection {
  /// Counts the connection's decoded audio and real-time factor: by engine, as every protocol
  /// does, and with `protocol="wyoming"`.
  private func reportDecoding(_ final: WyomingSession.State, processing: Duration) {
    let total = final.decodedSeconds
    guard total > 0 else { return }
    let processingSeconds = processing.timeInterval
    for (engine, seconds) in final.decoded where seconds > 0 {
      // The processing time is shared among the engines in proportion to their audio.
      core.metrics.decoded(
        audioSeconds: seconds, processingSeconds: processingSeconds * seconds / total,
        engine: engine.rawValue)
    }
    core.metrics.protocolDecoded(
      Self.protocolName, audioSeconds: total, processingSeconds: processingSeconds)
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
    busySince = state.pushedSamples > state.decodedSamples ? now : nil
  }
}

/// When the connection's last event arrived: a final transcript's latency counts from it.
private final class LastEvent: Sendable {
  private let instant = Mutex<ContinuousClock.Instant?>(nil)

  func mark() { instant.withLock { $0 = .now } }

  var elapsed: Duration? { instant.withLock { $0.map { .now - $0 } } }
}
