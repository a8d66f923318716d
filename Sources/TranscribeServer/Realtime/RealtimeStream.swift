import Architecture
import Foundation
import HummingbirdWebSocket
import Logging
import SpeechClient

/// The socket side of one Realtime transcription session: runs a ``RealtimeSession`` store and
/// does what its state says, as ``VoskStream`` does for vosk's protocol.
///
/// It reads a message only when the session allows one, sends each as an action, writes the
/// session's outbox in order (each event with its `event_id`), and sends `clientLeft` when the
/// client leaves. ``run(inbound:outbound:)`` hands ``serve(_:write:)`` the messages and a
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
    let shutdownNotice = ClientConnection()
    let session: AdmittedSession
    do throws(AdmissionRefusal) {
      session = try core.admit(.stream, endpoint: Self.endpoint, remoteAddress: client.address) {
        shutdownNotice.markGone()
      }
    } catch {
      try await turnAway(messages, with: WebSocketSessionError(error), write: write)
      return
    }
    core.metrics.protocolSessionStarted(Self.protocolName)
    let core = self.core
    let limits = core.configuration
    let (inbox, _, consumedSeconds) = AudioInbox.live()
    let sessionID = session.log.id
    let store = await MainActor.run {
      Store(initialState: RealtimeSession.State(id: sessionID)) {
        RealtimeSession(limits: limits)
      } withDependencies: {
        $0.speechClient = core.makeSpeechClient()
        $0.continuousClock = core.clock
        $0.audioInbox = inbox
      }
    }

    let (allowances, allowance) = AsyncStream.makeStream(
      of: Int.self, bufferingPolicy: .bufferingNewest(1))
    let connection = client.connection
    let states = await store.states(bufferingPolicy: .bufferingNewest(1))
    _ = await store.send(.start)
    let defaultModel = limits.engines.first?.rawValue ?? "default"
    var processing = Duration.zero
    var behindSince: ContinuousClock.Instant?

    let readFailure = await withTaskGroup(of: (any Error)?.self) { group in
      group.addTask {
        var iterator = messages.makeAsyncIterator()
        var read = 0
        for await allowed in allowances {
          while read < allowed {
            read += 1
            do {
              switch try await iterator.next() {
              case .text(let text)?: _ = await store.send(.text(text))
              case .binary(let buffer)?: _ = await store.send(.binary(buffer.readableBytes))
              case nil:
                _ = await store.send(.clientLeft)
                return nil
              }
            } catch {
              guard !Task.isCancelled else { return nil }
              _ = await store.send(.readFailed("\(error)"))
              return error
            }
          }
        }
        return nil
      }
      group.addTask {
        await connection.waitUntilGone()
        guard !Task.isCancelled else { return nil }
        _ = await store.send(.clientLeft)
        return nil
      }
      group.addTask {
        await shutdownNotice.waitUntilGone()
        guard !Task.isCancelled else { return nil }
        _ = await store.send(.shutdown)
        return nil
      }
      var written = 0
      var events = 0
      var isWriteFailed = false
      // When each item was committed, for the latency of its transcript.
      var committedAt: [String: ContinuousClock.Instant] = [:]
      streaming: for await state in states {
        allowance.yield(state.allowedMessages)
        // The decoding time of the real-time factor: while the decoder is behind the audio.
        let isBehind = state.recognition != nil && state.decodedSamples < state.runSamples
        switch (behindSince, isBehind) {
        case (nil, true): behindSince = .now
        case (let since?, false):
          processing += .now - since
          behindSince = nil
        default: break
        }
        if state.ending != nil { session.freePlace() }
        let outputs = state.outbox.dropFirst(max(0, written - state.written))
        guard !outputs.isEmpty else {
          if state.ending != nil { break }
          continue
        }
        do {
          for output in outputs {
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
            written += 1
          }
        } catch {
          isWriteFailed = true
          break streaming
        }
        _ = await store.send(.written(through: written))
      }
      if isWriteFailed { _ = await store.send(.clientLeft) }
      allowance.finish()
      group.cancelAll()
      var readFailure: (any Error)?
      for await failure in group where failure != nil { readFailure = failure }
      return readFailure
    }

    let final = await MainActor.run { store.state }
    let audioSeconds = consumedSeconds()
    if final.run > 0 {
      core.metrics.decoded(
        audioSeconds: audioSeconds, processingSeconds: processing.timeInterval,
        engine: final.configuration.engine?.rawValue ?? defaultModel)
    }
    var outcome: SessionOutcome
    switch final.ending ?? .clientGone {
    case .clientGone: outcome = .clientClosed
    case .readFailed(let description): outcome = .badInput(description)
    case .error(let error): outcome = error.outcome
    }
    if outcome == .clientClosed, connection.isUnresponsive { outcome = .pingTimeout }
    if outcome == .clientClosed, let reason = connection.refusalReason {
      outcome = .badInput(reason)
    }
    session.end(outcome, audioSeconds: audioSeconds)
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
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        var iterator = messages.makeAsyncIterator()
        _ = try? await iterator.next()
      }
      group.addTask {
        try? await ContinuousClock().sleep(for: VoskStream.firstMessageWait)
      }
      await group.next()
      group.cancelAll()
    }
    core.metrics.protocolError(Self.protocolName, code: RealtimeError(closing: error).code ?? "")
    let event = RealtimeServerEvent.error(RealtimeError(closing: error))
    try await write(.text(event.json(eventID: "event_refused", sessionID: "", defaultModel: "")))
    try await write(.close(error))
  }
}
