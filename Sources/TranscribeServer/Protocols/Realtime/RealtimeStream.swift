import Architecture
import Foundation
import HummingbirdWebSocket
import Logging
import SpeechClient

/// The socket side of one Realtime transcription session: ``StreamHost`` runs it with
/// ``RealtimeCodec``.
///
/// ``run(inbound:outbound:)`` hands the host the socket's messages and a writer; tests hand
/// ``serve(_:write:)`` a stream of messages and collect what it writes.
struct RealtimeStream {
  let core: SessionCore
  let client: RequestClient

  /// The endpoint, as logs and metrics name it.
  static let endpoint = "/v1/realtime"
  /// The `protocol` label of the server's per-protocol metrics.
  static let protocolName = "realtime"

  /// Serves one session on a WebSocket; returns once it is closed.
  func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
    try await serve(inbound.messages(maxSize: core.configuration.frameReadLimit)) { frame in
      try await Self.write(frame, to: outbound)
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
    let host = StreamHost(
      core: core, remoteAddress: client.address, connection: client.connection)
    try await host.serve(messages, codec: RealtimeCodec(core: core), write: write)
  }

  /// Answers a WebSocket that asked for another intent than transcription (or none) with an
  /// `error` event naming the fix, and closes it (1008), once the client has sent its first
  /// message or ``ServerConfiguration/turnAwayWait`` has passed.
  func refuse(
    inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, intent: String?
  ) async throws {
    let error = WebSocketSessionError.unsupportedIntent(
      intent.map { String($0.prefix(ServerConfiguration.quotedIntent)) })
    var logger = core.logger
    if let address = client.address { logger[metadataKey: "remote"] = .string(address) }
    logger.info(
      "realtime session refused", metadata: ["reason": .string("intent is not transcription")])
    await StreamHost.waitForFirstMessage(
      inbound.messages(maxSize: core.configuration.frameReadLimit),
      atMost: core.configuration.turnAwayWait)
    for frame in RealtimeCodec(core: core).closing(error) {
      try await Self.write(frame, to: outbound)
    }
  }

  private static func write(_ frame: Frame, to outbound: WebSocketOutboundWriter) async throws {
    switch frame {
    case .text(let text):
      try await outbound.writeTextMessage(text)
    case .close(nil):
      try await outbound.close(.normalClosure, reason: nil)
    case .close(let error?):
      try await outbound.close(.init(codeNumber: Int(error.closeCode)), reason: error.closeReason)
    }
  }
}

/// OpenAI's Realtime transcription protocol as ``StreamHost`` runs it: text messages for
/// ``RealtimeSession``, each event written with its `event_id`, and the latency of completed
/// items, the errors and the real-time factor measured.
struct RealtimeCodec: StreamCodec {
  typealias Session = RealtimeSession
  typealias Frame = RealtimeStream.Frame

  let core: SessionCore
  /// Events written so far, for their ids.
  private var events = 0
  /// When each item was committed, for the latency of its transcript.
  private var committedAt: [String: ContinuousClock.Instant] = [:]
  /// The decoding time of the real-time factor: while the decoder is behind the audio.
  private var processing = Duration.zero
  private var behindSince: ContinuousClock.Instant?

  init(core: SessionCore) {
    self.core = core
  }

  var endpoint: String { RealtimeStream.endpoint }
  var protocolName: String { RealtimeStream.protocolName }
  var countsSessions: Bool { true }
  /// The model events name when the session has not chosen one.
  private var defaultModel: String { core.configuration.engines.first?.rawValue ?? "default" }

  var reading: StreamLoop<RealtimeSession>.Reading<WebSocketMessage> {
    let limit = core.configuration.maxFrameBytes
    return .init(
      message: { message in
        // The JSON and the base64 audio are read here, by the reader, off the main actor.
        switch message {
        case .text(let text): (.message(RealtimeClientMessage(text: text, limit: limit)), false)
        case .binary(let buffer): (.binary(buffer.readableBytes), false)
        }
      },
      end: .stream(.clientLeft), failure: { .stream(.readFailed("\($0)")) })
  }

  func session(id: String) -> (state: RealtimeSession.State, reducer: RealtimeSession) {
    (RealtimeSession.State(id: id), RealtimeSession(limits: core.configuration))
  }

  mutating func frames(
    for output: RealtimeSession.Output, in state: RealtimeSession.State
  ) -> [Frame] {
    switch output {
    case .event(let event):
      events += 1
      return [
        .text(
          event.json(
            eventID: "event_\(state.id)_\(events)", sessionID: "sess_\(state.id)",
            defaultModel: defaultModel))
      ]
    case .close(let error):
      return [.close(error)]
    }
  }

  mutating func wrote(_ output: RealtimeSession.Output, in state: RealtimeSession.State) {
    guard case .event(let event) = output else { return }
    switch event {
    case .committed(let itemID, _):
      committedAt[itemID] = .now
    case .completed(let itemID, _, _, _):
      if let at = committedAt.removeValue(forKey: itemID) {
        core.metrics.protocolFinalDelivered(protocolName, latency: .now - at)
      }
    case .error(let error):
      core.metrics.protocolError(protocolName, code: error.code ?? error.type)
    default:
      break
    }
  }

  mutating func observe(_ state: RealtimeSession.State) {
    let isBehind = state.decodedSamples < (state.run?.samples ?? 0)
    switch (behindSince, isBehind) {
    case (nil, true): behindSince = .now
    case (let since?, false):
      processing += .now - since
      behindSince = nil
    default: break
    }
  }

  func finish(_ final: RealtimeSession.State, consumedSeconds: Double) -> Double {
    if final.audioMessages > 0 {
      core.metrics.decoded(
        audioSeconds: consumedSeconds, processingSeconds: processing.timeInterval,
        engine: final.configuration.engine?.rawValue ?? defaultModel)
    }
    return consumedSeconds
  }

  mutating func refusal(_ problem: SessionProblem) -> (frames: [Frame], waitsForMessage: Bool) {
    (closing(.session(problem)), true)
  }

  /// The `error` event and the close of a session that cannot start, counted.
  func closing(_ error: WebSocketSessionError) -> [Frame] {
    let realtimeError = RealtimeError(closing: error)
    core.metrics.protocolError(protocolName, code: realtimeError.code ?? "")
    let event = RealtimeServerEvent.error(realtimeError)
    return [
      .text(event.json(eventID: "event_refused", sessionID: "", defaultModel: "")),
      .close(error),
    ]
  }
}
