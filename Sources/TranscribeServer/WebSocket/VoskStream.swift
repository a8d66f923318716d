import Architecture
import Foundation
import HummingbirdWebSocket
import Logging
import SpeechClient
import Synchronization

/// The socket side of one WebSocket stream: runs a ``VoskSession`` store and does what its state
/// says.
///
/// It reads a message only when the session allows one, sends each as an action, writes the
/// session's outbox in order, and sends `clientGone` when the client leaves, whether or not a
/// message is being read (``ClientConnection``). Everything the stream decides (replies,
/// deadlines, the close) is the session's. The socket is only at the edges:
/// ``run(inbound:outbound:)`` hands ``serve(_:write:)`` the messages and a writer, and tests hand
/// it a stream of messages and collect what it writes.
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

  /// Serves one stream: reads `messages`, writes with `write`; returns once it is closed.
  ///
  /// The stream runs in the loop every protocol shares (``SessionHost``): the reader (messages,
  /// as the session allows them), a watcher for the client leaving, one for the server shutting
  /// down, and this task writing the session's outbox. A failure to read is thrown once the
  /// session has closed the stream, so the protocol layer closes with the code it stands for
  /// (e.g. 1009).
  func serve<Messages: AsyncSequence & Sendable>(
    _ messages: Messages,
    write: (VoskSession.Output, VoskStreamConfiguration) async throws -> Void
  ) async throws where Messages.Element == WebSocketMessage {
    let session: AdmittedSession
    let shutdownNotice: ClientConnection
    do throws(AdmissionRefusal) {
      (session, shutdownNotice) = try core.admitStream(
        endpoint: "/", remoteAddress: client.address)
    } catch {
      try await turnAway(messages, with: WebSocketSessionError(error), write: write)
      return
    }
    let core = self.core
    let limits = core.configuration
    let (inbox, audio, _) = AudioInbox.live()
    let store = await core.makeSessionStore(VoskSession.State(), audioInbox: inbox) {
      VoskSession(limits: limits)
    }
    let host = SessionHost(
      store: store, outbox: \.outbox, written: \.written, allowedMessages: \.allowedMessages,
      ending: \.ending, start: .start, acknowledge: { .written(through: $0) },
      clientLeft: .clientLeft, shutdown: .shutdown)
    let connection = client.connection
    var measure = StreamMeasurements()
    let (final, readFailure) = await host.run(
      messages,
      reading: .init(
        message: { message in
          switch message {
          case .text(let text): (.text(text), false)
          case .binary(let buffer): (.audio(buffer), false)
          }
        },
        end: .clientLeft, failure: { .readFailed("\($0)") }),
      session: session, shutdownNotice: shutdownNotice, connection: connection
    ) { state in
      measure.observe(state)
    } write: { output, state in
      try await write(output, state.configuration)
      if case .reply(.result(let words)) = output, let latency = measure.latency(of: words) {
        core.metrics.finalResultDelivered(latency: latency)
      }
    }

    let audioSeconds = audio()?.consumedDuration ?? 0
    if final.recognition != nil {
      core.metrics.decoded(
        audioSeconds: audioSeconds, processingSeconds: measure.processing.timeInterval,
        engine: engineName(final.configuration))
      core.metrics.protocolDecoded(
        Self.protocolName, audioSeconds: audioSeconds,
        processingSeconds: measure.processing.timeInterval)
    }
    let ending = final.ending ?? .clientGone
    session.end(SessionOutcome(ending).seen(by: connection), audioSeconds: audioSeconds)
    // The protocol layer closes with the code a read failure stands for (e.g. 1009).
    if case .readFailed = ending, let readFailure { throw readFailure }
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

  /// Answers a stream that cannot start with `error` and closes it, once the client has sent
  /// its first message or ``firstMessageWait`` has passed.
  ///
  /// Frames sent right behind the `101 Switching Protocols` can reach a client before it has
  /// finished its side of the upgrade, and some clients (swift-websocket's among them) lose
  /// them; a client that has sent a message has finished it.
  private func turnAway<Messages: AsyncSequence & Sendable>(
    _ messages: Messages, with error: WebSocketSessionError,
    write: (VoskSession.Output, VoskStreamConfiguration) async throws -> Void
  ) async throws where Messages.Element == WebSocketMessage {
    await SessionHosting.waitForFirstMessage(messages, atMost: Self.firstMessageWait)
    try await write(.reply(.error(error.message)), .init())
    try await write(.close(error), .init())
  }

  /// The longest a stream that is turned away waits for the client's first message.
  static let firstMessageWait = Duration.seconds(1)
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
  /// The most arrivals kept (a long stretch without words must not grow the list).
  static let arrivalLimit = 1_000

  mutating func observe(_ state: VoskSession.State) {
    let now = ContinuousClock.now
    let duration = Double(state.pushedSamples) / Double(state.configuration.sampleRate)
    if duration > pushed {
      pushed = duration
      arrivals.append((duration, now))
      if arrivals.count > Self.arrivalLimit { arrivals.removeFirst() }
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
