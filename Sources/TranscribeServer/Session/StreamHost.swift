import Architecture
import Foundation

/// A streaming protocol as ``StreamHost`` runs it: its session reducer, how a message becomes
/// an action, how an output becomes what is written, its names, and what it measures.
///
/// A protocol is one codec (``VoskCodec``, ``RealtimeCodec``, ``WyomingCodec``); everything
/// else about a stream (admission, the store, the loop with its audio, the ending and its
/// log line) is the host's, once.
protocol StreamCodec {
  associatedtype Session: ProtocolSession & Sendable
  where Session.State: Sendable, Session.Action: Sendable
  associatedtype Message: Sendable
  associatedtype Frame

  /// The endpoint, as logs name the session (`/`, `/v1/realtime`, `wyoming`).
  var endpoint: String { get }
  /// The `protocol` label of the server's per-protocol metrics.
  var protocolName: String { get }
  /// Whether each session counts in `transcribe_protocol_sessions_total`.
  var countsSessions: Bool { get }
  /// How the host turns what it reads into actions (run by the reader, off the main actor).
  var reading: StreamLoop<Session>.Reading<Message> { get }

  /// The session's first state and its reducer, for a session the log calls `id`.
  func session(id: String) -> (state: Session.State, reducer: Session)
  /// What writes `output`, given the state the session is in.
  mutating func frames(for output: Session.Output, in state: Session.State) -> [Frame]
  /// Measures what went out, once it is written.
  mutating func wrote(_ output: Session.Output, in state: Session.State)
  /// Measures from every state the host sees.
  mutating func observe(_ state: Session.State)
  /// Counts the session's decoding once it is over; returns the seconds of audio its log line
  /// names (`consumedSeconds`: what the decoder took from the session's audio).
  func finish(_ final: Session.State, consumedSeconds: Double) -> Double
  /// What answers a session the core turned away, and whether it waits for the client's first
  /// message (frames right behind a WebSocket upgrade can be lost by a client still finishing
  /// its side of it).
  mutating func refusal(_ problem: SessionProblem) -> (frames: [Frame], waitsForMessage: Bool)
}

/// The one host of every streaming session: admits it through the session core, makes its
/// store, runs it in ``StreamLoop``'s loop with the protocol's codec,
/// and ends it with its outcome.
///
/// It knows nothing of sockets: it reads messages from any sequence and writes frames through
/// a closure, so tests drive it without a network.
///
/// ```swift
/// let host = StreamHost(core: core, remoteAddress: client.address, connection: client.connection)
/// try await host.serve(messages, codec: VoskCodec(core: core)) { frame in … }
/// ```
struct StreamHost {
  let core: SessionCore
  let remoteAddress: String?
  /// The client's connection, when the transport tells that it left (a WebSocket's); `nil`
  /// when only reading and writing tell (TCP).
  let connection: ClientConnection?

  /// Serves one session: reads `messages`, writes with `write`; returns once it is over. A
  /// failure to read is thrown once the session has ended, so the protocol layer closes with
  /// the code it stands for (e.g. 1009).
  func serve<Codec: StreamCodec, Messages: AsyncSequence & Sendable>(
    _ messages: Messages, codec: Codec, write: (Codec.Frame) async throws -> Void
  ) async throws where Messages.Element == Codec.Message {
    var codec = codec
    let session: AdmittedSession
    let shutdownNotice: ClientConnection
    do throws(AdmissionRefusal) {
      (session, shutdownNotice) = try core.admitStream(
        endpoint: codec.endpoint, remoteAddress: remoteAddress)
    } catch {
      let (frames, waits) = codec.refusal(SessionProblem(error))
      if waits {
        await StreamHost.waitForFirstMessage(
          messages, atMost: core.configuration.turnAwayWait)
      }
      for frame in frames { try await write(frame) }
      return
    }
    if codec.countsSessions { core.metrics.protocolSessionStarted(codec.protocolName) }
    let (initial, reducer) = codec.session(id: session.log.id)
    let lease = core.executors.lease()
    defer { lease.release() }
    let store = core.makeSessionStore(initial, reducer: reducer, executor: lease.executor)
    let host = StreamLoop<Codec.Session>(store: store)
    let (final, readFailure) = await host.run(
      messages, reading: codec.reading, session: session, shutdownNotice: shutdownNotice,
      connection: connection
    ) { state in
      codec.observe(state)
    } write: { output, state in
      for frame in codec.frames(for: output, in: state) { try await write(frame) }
      codec.wrote(output, in: state)
    }
    let audioSeconds = codec.finish(final, consumedSeconds: host.audios.consumedSeconds)
    let ending = final[keyPath: Codec.Session.streamState].ending ?? .clientGone
    let outcome = connection.map { ending.outcome.seen(by: $0) } ?? ending.outcome
    session.end(outcome, audioSeconds: audioSeconds)
    if case .readFailed = ending, let readFailure { throw readFailure }
  }
}
