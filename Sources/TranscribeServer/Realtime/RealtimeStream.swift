import Architecture
import Foundation
import HummingbirdWebSocket
import Logging
import SpeechClient

/// The socket side of one Realtime transcription session: runs a ``RealtimeSession`` store and
/// does what its state says, as ``VoskStream`` does for vosk's protocol.
///
/// In the loop every protocol shares (``SessionHost``), it reads a message only when the
/// session allows one, sends each as an action, writes the session's outbox in order (each
/// event with its `event_id`), and sends `clientLeft` when the client leaves. ``run(inbound:outbound:)`` hands ``serve(_:write:)`` the messages and a
/// writer; tests hand it a stream of messages and collect what it writes.
struct RealtimeStream {
  let core: SessionCore
  let client: RequestClient

  /// The endpoint, as logs and metrics name it.
  static let endpoint = "/v1/realtime"
  /// The `protocol` label of the server's per-protocol metrics.
  static let protocolName = "realtime"

  /// Serves one session on a WebSocket; returns once it is closed.
  func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
    try await serve(inbound.messages(maxSize: core.configuration.frameReadLimit)) { output in
      switch output {
      case .text(let text):
        try await outbound.writeTextMessage(text)
      case .close(nil):
        try await outbound.close(.normalClosure, reason: nil)
      case .close(let error?):
        try await outbound.close(.init(codeNumber: Int(error.closeCode)), reason: error.closeReason)
      }
    }
  }

  /// What goes on the socket.
  enum Frame: Equatable, Sendable {
    /// A text message: an event's JSON.
    case text(String)
    /// The close frame: normal closure for `nil`, else the error's code and reason.
    case close(WebSocketSessionError?)
  }

  /// Serves one session: reads `messages`, writes with `write`; returns once it is closed.
  func serve<Messages: AsyncSequence & Sendable>(
    _ messages: Messages, write: (Frame) async throws -> Void
  ) async throws where Messages.Element == WebSocketMessage {
    let session: AdmittedSession
    let shutdownNotice: ClientConnection
    do throws(AdmissionRefusal) {
      (session, shutdownNotice) = try core.admitStream(
        endpoint: Self.endpoint, remoteAddress: client.address)
    } catch {
      try await turnAway(messages, with: WebSocketSessionError(error), write: write)
      return
    }
    core.metrics.protocolSessionStarted(Self.protocolName)
    let core = self.core
    let limits = core.configuration
    let (inbox, _, consumedSeconds) = AudioInbox.live()
    let sessionID = session.log.id
    let store = await core.makeSessionStore(RealtimeSession.State(id: sessionID), audioInbox: inbox)
    {
      RealtimeSession(limits: limits)
    }
    let host = SessionHost(
      store: store, outbox: \.outbox, written: \.written, allowedMessages: \.allowedMessages,
      ending: \.ending, start: .start, acknowledge: { .written(through: $0) },
      clientLeft: .clientLeft, shutdown: .shutdown)
    let connection = client.connection
    let defaultModel = limits.engines.first?.rawValue ?? "default"
    var processing = Duration.zero
    var behindSince: ContinuousClock.Instant?
    var events = 0
    // When each item was committed, for the latency of its transcript.
    var committedAt: [String: ContinuousClock.Instant] = [:]

    let (final, readFailure) = await host.run(
      messages,
      reading: .init(
        message: { message in
          switch message {
          case .text(let text): (.text(text), false)
          case .binary(let buffer): (.binary(buffer.readableBytes), false)
          }
        },
        end: .clientLeft, failure: { .readFailed("\($0)") }),
      session: session, shutdownNotice: shutdownNotice, connection: connection
    ) { state in
      // The decoding time of the real-time factor: while the decoder is behind the audio.
      let isBehind = state.recognition != nil && state.decodedSamples < state.runSamples
      switch (behindSince, isBehind) {
      case (nil, true): behindSince = .now
      case (let since?, false):
        processing += .now - since
        behindSince = nil
      default: break
      }
    } write: { output, _ in
      switch output {
      case .event(let event):
        events += 1
        try await write(
          .text(
            event.json(
              eventID: "event_\(sessionID)_\(events)", sessionID: "sess_\(sessionID)",
              defaultModel: defaultModel)))
        switch event {
        case .committed(let itemID, _):
          committedAt[itemID] = .now
        case .completed(let itemID, _, _, _):
          if let at = committedAt.removeValue(forKey: itemID) {
            core.metrics.protocolFinalDelivered(Self.protocolName, latency: .now - at)
          }
        case .error(let error):
          core.metrics.protocolError(Self.protocolName, code: error.code ?? error.type)
        default:
          break
        }
      case .close(let error):
        try await write(.close(error))
      }
    }

    let audioSeconds = consumedSeconds()
    if final.run > 0 {
      core.metrics.decoded(
        audioSeconds: audioSeconds, processingSeconds: processing.timeInterval,
        engine: final.configuration.engine?.rawValue ?? defaultModel)
    }
    let outcome: SessionOutcome =
      switch final.ending ?? .clientGone {
      case .clientGone: .clientClosed
      case .readFailed(let description): .badInput(description)
      case .error(let error): error.outcome
      }
    session.end(outcome.seen(by: connection), audioSeconds: audioSeconds)
    if case .readFailed = final.ending, let readFailure { throw readFailure }
  }

  /// Answers a WebSocket that asked for another intent than transcription (or none) with an
  /// `error` event naming the fix, and closes it (1008).
  func refuse(
    inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, intent: String?
  ) async throws {
    let error = WebSocketSessionError.unsupportedIntent(intent.map { String($0.prefix(40)) })
    var logger = core.logger
    if let address = client.address { logger[metadataKey: "remote"] = .string(address) }
    logger.info(
      "realtime session refused", metadata: ["reason": .string("intent is not transcription")])
    try await turnAway(
      inbound.messages(maxSize: core.configuration.frameReadLimit), with: error
    ) { frame in
      switch frame {
      case .text(let text): try await outbound.writeTextMessage(text)
      case .close(let error):
        try await outbound.close(
          .init(codeNumber: Int(error?.closeCode ?? 1000)), reason: error?.closeReason)
      }
    }
  }

  /// Answers a session that cannot start with an `error` event and closes it, once the client
  /// has sent its first message or ``VoskStream/firstMessageWait`` has passed (frames right
  /// behind the upgrade can be lost by a client still finishing it).
  private func turnAway<Messages: AsyncSequence & Sendable>(
    _ messages: Messages, with error: WebSocketSessionError, write: (Frame) async throws -> Void
  ) async throws where Messages.Element == WebSocketMessage {
    await SessionHosting.waitForFirstMessage(messages, atMost: VoskStream.firstMessageWait)
    core.metrics.protocolError(Self.protocolName, code: RealtimeError(closing: error).code ?? "")
    let event = RealtimeServerEvent.error(RealtimeError(closing: error))
    try await write(.text(event.json(eventID: "event_refused", sessionID: "", defaultModel: "")))
    try await write(.close(error))
  }
}
