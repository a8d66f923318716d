import Architecture
import Foundation
import HummingbirdWebSocket
import Logging
import SpeechClient
import SpeechRecognitionFeature

/// One WebSocket stream in vosk-server's protocol, from the first message to the close.
///
/// The stream runs the `SpeechRecognition` store with the server's client, its request's source
/// the audio the client sends (``PushedAudio``). It answers every audio message and the end
/// with exactly one reply, after the decoder has caught up with that message (waiting at most
/// ``replyWaitLimit``): a finished utterance not sent yet if there is one, else the current
/// partial. The reply to `{"eof" : 1}` carries every finished word not sent yet, then the stream
/// closes normally. Messages are read from the socket one at a time, only once the previous one
/// is answered and at most ``bufferLimit`` of audio waits to be decoded, so a client that sends
/// faster than the decoder keeps up waits in TCP instead of filling memory.
struct VoskStream {
  let server: TranscriptionServer
  let logger: Logger

  /// The longest the reply to an audio message waits for the decoder to catch up with it.
  static let replyWaitLimit = Duration.seconds(2)
  /// The most audio, in seconds, that may wait to be decoded before the socket is not read.
  static let bufferLimit: TimeInterval = 5
  /// The longest the last words may take after the end of the stream or a shutdown, on top of
  /// the feature's own stop deadline.
  static let finalWaitLimit = Duration.seconds(15)

  /// How a stream ended.
  enum Ending {
    /// The client sent `{"eof" : 1}` and got the last words.
    case endOfStream
    /// The client closed or went away.
    case clientGone
    /// Reading the socket failed.
    case readFailed(any Error)
    /// The stream is closed for this reason (after the last words where there were any).
    case error(WebSocketSessionError)
  }

  /// Serves one stream; returns once it is closed.
  func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
    guard let permit = server.sessions.acquire() else {
      server.metrics.sessionRejected(reason: "capacity")
      SessionLog.rejected(logger, endpoint: "/", remoteAddress: nil, reason: .capacity)
      try await close(outbound, with: .capacity)
      return
    }
    defer { permit.release() }
    let inbox = SessionInbox()
    guard let id = server.streams.register(shutdown: { inbox.post(.shutdown) }) else {
      server.metrics.sessionRejected(reason: "shutdown")
      SessionLog.rejected(logger, endpoint: "/", remoteAddress: nil, reason: .shuttingDown)
      permit.release()
      try await close(outbound, with: .shuttingDown)
      return
    }
    defer { server.streams.unregister(id) }
    server.metrics.sessionStarted()
    let log = SessionLog(logger, endpoint: "/", remoteAddress: nil)
    log.started()

    // Twice the limit reaches this code, so a message just over it gets a clear answer; the
    // protocol layer closes larger ones with 1009 itself.
    let messages = inbound.messages(maxSize: 2 * server.configuration.maxFrameBytes)
    let reader = Task {
      var iterator = messages.makeAsyncIterator()
      while await inbox.waitForDemand() {
        do {
          guard let message = try await iterator.next() else {
            inbox.post(.inboundEnded)
            return
          }
          inbox.post(.message(message))
        } catch {
          inbox.post(.inboundFailed(error))
          return
        }
      }
    }
    let session = Session(server: server, inbox: inbox, outbound: outbound, logger: log.logger)
    let ending = await session.run()
    await session.end()
    let audioSeconds = session.audio?.consumedDuration ?? 0
    // The place is free before the client learns that the stream is over; a shutdown waits
    // for the close (the `defer` above unregisters the stream).
    permit.release()
    server.metrics.sessionEnded()

    var failure: (any Error)?
    switch ending {
    case .endOfStream:
      try? await outbound.close(.normalClosure, reason: nil)
    case .clientGone:
      break
    case .readFailed(let error):
      failure = error
    case .error(let error):
      try? await close(outbound, with: error)
    }
    inbox.close()
    reader.cancel()
    await reader.value
    log.ended(SessionOutcome(ending), audioSeconds: audioSeconds)
    // The protocol layer closes with the code a read failure stands for (e.g. 1009).
    if let failure { throw failure }
  }

  private func close(
    _ outbound: WebSocketOutboundWriter, with error: WebSocketSessionError
  ) async throws {
    try await outbound.writeTextMessage(
      VoskReply.error(error.message).json(configuration: VoskStreamConfiguration()))
    try await outbound.close(.init(codeNumber: Int(error.closeCode)), reason: error.closeReason)
  }
}

extension VoskStream {
  /// The state of one stream while it runs; used by one task only.
  final class Session {
    let server: TranscriptionServer
    let inbox: SessionInbox
    let outbound: WebSocketOutboundWriter
    let logger: Logger
    let clock: any Clock<Duration>

    var configuration = VoskStreamConfiguration()
    var audio: PushedAudio?
    var store: StoreOf<SpeechRecognition>?
    /// The engine the stream runs on, as metrics label it: pocketsphinx for a phrase list (a
    /// grammar), the server's default otherwise.
    var engineName: String {
      if let phrases = configuration.phraseList, !phrases.isEmpty {
        return SpeechRecognitionRequest.EngineName.pocketsphinx.rawValue
      }
      return server.configuration.engines.first?.rawValue ?? "default"
    }
    var observer: Task<Void, Never>?
    var timers: [Task<Void, Never>] = []
    var idleTimer: Task<Void, Never>?
    var idleGeneration = 0
    /// The newest state of the store.
    var latest: SpeechRecognition.State?
    /// Finished utterances already taken from the transcript.
    var takenUtterances = 0
    /// Finished utterances not sent yet.
    var finals: [[TranscriptionSegment]] = []
    /// The reply being waited for: number, the pushed samples it must reflect, when it began.
    var pending: (number: Int, samples: Int, since: ContinuousClock.Instant)?
    var replyCount = 0
    /// Whether a message arrived while waiting for the last words (it gets them as its answer).
    var isMessageUnanswered = false
    /// Whether the socket may be read again once the decoder has caught up enough.
    var wantsMessage = false
    /// When each pushed message's audio ended (seconds) and when it arrived, for latency.
    var arrivals: [(end: TimeInterval, at: ContinuousClock.Instant)] = []
    var decodingTime = Duration.zero
    /// The most arrivals kept (a long stretch without words must not grow the list).
    static let arrivalLimit = 1_000

    init(
      server: TranscriptionServer, inbox: SessionInbox, outbound: WebSocketOutboundWriter,
      logger: Logger
    ) {
      self.server = server
      self.inbox = inbox
      self.outbound = outbound
      self.logger = logger
      self.clock = server.clock
    }

    /// Handles events until the stream ends.
    func run() async -> VoskStream.Ending {
      let maxDuration = server.configuration.maxSessionDuration
      let clock = self.clock
      let inbox = self.inbox
      timers.append(
        Task {
          guard (try? await clock.sleep(for: maxDuration)) != nil else { return }
          inbox.post(.sessionTooLong)
        })
      restartIdleTimer()
      do {
        while let event = await inbox.next() {
          if let ending = try await handle(event) { return ending }
        }
        return .clientGone
      } catch let error as WebSocketSessionError {
        return await finishing(with: error)
      } catch {
        // Writing to the socket failed: the client is gone.
        return .clientGone
      }
    }

    /// Stops the timers, the store and the audio: the decoder goes back to the pool.
    func end() async {
      for timer in timers { timer.cancel() }
      idleTimer?.cancel()
      audio?.finish()
      observer?.cancel()
      if let store {
        await MainActor.run {
          if store.state.isRecording { store.send(.recordButtonTapped) }
        }
      }
      store = nil
      if let audio {
        server.metrics.decoded(
          audioSeconds: audio.consumedDuration, processingSeconds: decodingTime.timeInterval,
          engine: engineName)
      }
    }

    private func handle(_ event: SessionInbox.Event) async throws -> VoskStream.Ending? {
      switch event {
      case .message(.text(let text)):
        restartIdleTimer()
        switch try VoskMessage(text: text) {
        case .config(let configuration):
          guard audio == nil else { throw WebSocketSessionError.configurationAfterAudio }
          self.configuration = configuration
          inbox.allowNextMessage()
          return nil
        case .eof:
          return try await endOfStream()
        }
      case .message(.binary(let buffer)):
        restartIdleTimer()
        let bytes = buffer.readableBytes
        guard bytes <= server.configuration.maxFrameBytes else {
          throw WebSocketSessionError.frameTooLarge(
            bytes: bytes, limit: server.configuration.maxFrameBytes)
        }
        guard bytes % 2 == 0 else { throw WebSocketSessionError.oddLengthFrame(bytes: bytes) }
        let audio = try await startedAudio()
        audio.push(littleEndian: buffer.readableBytesView)
        arrivals.append((audio.pushedDuration, .now))
        if arrivals.count > Self.arrivalLimit { arrivals.removeFirst() }
        replyCount += 1
        pending = (replyCount, audio.pushedSampleCount, .now)
        let number = replyCount
        let clock = self.clock
        let inbox = self.inbox
        timers.removeAll { $0.isCancelled }
        timers.append(
          Task {
            guard (try? await clock.sleep(for: VoskStream.replyWaitLimit)) != nil else { return }
            inbox.post(.replyDeadline(number))
          })
        try await replyIfCaughtUp()
        return nil
      case .inboundEnded:
        return .clientGone
      case .inboundFailed(let error):
        return .readFailed(error)
      case .state(let state):
        latest = state
        takeFinishedUtterances()
        if case .failed(let failure) = state.outcome {
          if case .wordNotInDictionary(let word, _) = failure {
            throw WebSocketSessionError.invalidConfigurationValue(
              field: "phrase_list",
              reason: "no phrase is usable: '\(word)' is not in the dictionary")
          }
          throw WebSocketSessionError.recognitionFailed(Self.describe(failure))
        }
        if case .notAuthorized(let authorization) = state.outcome {
          throw WebSocketSessionError.recognitionFailed(
            authorization.reason.map(Self.describe) ?? "speech recognition is not available")
        }
        try await replyIfCaughtUp()
        return nil
      case .replyDeadline(let number):
        if let pending, pending.number == number {
          try await reply()
        }
        return nil
      case .idle(let generation):
        guard generation == idleGeneration else { return nil }
        throw WebSocketSessionError.idle(server.configuration.idleTimeout)
      case .sessionTooLong:
        throw WebSocketSessionError.sessionTooLong(server.configuration.maxSessionDuration)
      case .shutdown:
        return await finishing(with: .shuttingDown)
      case .finalDeadline:
        return nil
      }
    }

    /// The audio of this stream, starting recognition on the first use.
    private func startedAudio() async throws -> PushedAudio {
      if let audio { return audio }
      let audio = PushedAudio(sampleRate: configuration.sampleRate)
      self.audio = audio
      var request = SpeechRecognitionRequest(source: .pushed(audio))
      if let phrases = configuration.phraseList, !phrases.isEmpty {
        request.model = .phrases(phrases)
      }
      let client = server.makeSpeechClient()
      let clock = self.clock
      let store = await MainActor.run {
        Store(initialState: SpeechRecognition.State(request: request)) {
          SpeechRecognition()
        } withDependencies: {
          $0.speechClient = client
          $0.continuousClock = clock
        }
      }
      self.store = store
      let states = await store.states(bufferingPolicy: .bufferingNewest(1))
      let inbox = self.inbox
      observer = Task {
        for await state in states {
          inbox.post(.state(state))
        }
      }
      await MainActor.run { _ = store.send(.recordButtonTapped) }
      return audio
    }

    /// Sends the pending reply once the decoder has reached its audio.
    private func replyIfCaughtUp() async throws {
      if let pending, let latest {
        let decoded = latest.progress.map {
          Int(($0.audioDuration * Double(configuration.sampleRate)).rounded())
        }
        let isOver = latest.status == .idle && latest.outcome != nil
        if isOver || (decoded ?? 0) >= pending.samples {
          decodingTime += ContinuousClock.now - pending.since
          try await reply()
        }
      }
      if wantsMessage, (audio?.unconsumedDuration ?? 0) <= VoskStream.bufferLimit {
        wantsMessage = false
        inbox.allowNextMessage()
      }
    }

    /// Sends the reply to the last audio message: a finished utterance if one waits, else the
    /// partial words.
    private func reply() async throws {
      pending = nil
      if !finals.isEmpty {
        try await sendResult(finals.removeFirst())
      } else {
        let partial = latest?.result?.bestTranscription.partialSegments ?? []
        try await send(.partial(partial.map(\.substring).joined(separator: " ")))
      }
      wantsMessage = true
      if (audio?.unconsumedDuration ?? 0) <= VoskStream.bufferLimit {
        wantsMessage = false
        inbox.allowNextMessage()
      }
    }

    /// `{"eof" : 1}`: finishes the audio, waits for the last words and sends them all.
    private func endOfStream() async throws -> VoskStream.Ending {
      pending = nil
      _ = try await startedAudio()
      try await waitForLastWords(within: VoskStream.finalWaitLimit)
      try await sendResult(finals.joined().map { $0 })
      finals = []
      return .endOfStream
    }

    /// Closes with `error`, after the last words when recognition was running.
    private func finishing(with error: WebSocketSessionError) async -> VoskStream.Ending {
      switch error {
      case .recognitionFailed, .frameTooLarge, .oddLengthFrame, .malformedJSON,
        .unknownConfigurationField, .invalidConfigurationValue, .unsupportedMessage,
        .configurationAfterAudio:
        break
      case .idle, .sessionTooLong, .shuttingDown, .capacity:
        let limit =
          error == .shuttingDown
          ? min(server.configuration.shutdownGracePeriod, VoskStream.finalWaitLimit)
          : VoskStream.finalWaitLimit
        guard audio != nil, (try? await waitForLastWords(within: limit)) != nil else { break }
        let words = finals.joined().map { $0 }
        finals = []
        // A client that sends and then waits for the answer (vosk's example does) gets the
        // last words as the answer to its message: one it sent already, or, unless it went
        // quiet, the one it sends next.
        var isAnswer = pending != nil || isMessageUnanswered
        if !isAnswer, !error.isIdle {
          isAnswer = await nextMessage(within: VoskStream.replyWaitLimit)
        }
        pending = nil
        if isAnswer || !words.isEmpty { try? await sendResult(words) }
      }
      return .error(error)
    }

    /// Lets the client send one more message and waits for it; whether it came in time.
    ///
    /// A short courtesy wait in real time, whatever the server's clock: a client that is not
    /// sending gets its last words a moment later, never not at all.
    private func nextMessage(within limit: Duration) async -> Bool {
      inbox.allowNextMessage()
      let inbox = self.inbox
      let deadline = Task {
        guard (try? await ContinuousClock().sleep(for: limit)) != nil else { return }
        inbox.post(.finalDeadline)
      }
      defer { deadline.cancel() }
      while let event = await inbox.next() {
        switch event {
        case .message: return true
        case .inboundEnded, .inboundFailed, .finalDeadline: return false
        default: continue
        }
      }
      return false
    }

    /// Finishes the audio and waits until the store has delivered the last result.
    private func waitForLastWords(within limit: Duration) async throws {
      audio?.finish()
      if let store {
        // Stopping while authorizing would cancel recognition: then the end of the audio ends
        // the task by itself.
        await MainActor.run {
          if store.state.status == .recording { store.send(.recordButtonTapped) }
        }
      }
      let clock = self.clock
      let inbox = self.inbox
      let deadline = Task {
        guard (try? await clock.sleep(for: limit)) != nil else { return }
        inbox.post(.finalDeadline)
      }
      defer { deadline.cancel() }
      while !(latest.map { $0.status == .idle && $0.outcome != nil } ?? false) {
        guard let event = await inbox.next() else { return }
        switch event {
        case .state(let state):
          latest = state
          takeFinishedUtterances()
        case .finalDeadline:
          throw WebSocketSessionError.recognitionFailed(
            "the last words did not arrive within \(limit)")
        case .inboundEnded, .inboundFailed:
          return
        case .message:
          // Not decoded any more; answered with the last words.
          isMessageUnanswered = true
        default:
          continue
        }
      }
      if case .failed(let failure) = latest?.outcome {
        throw WebSocketSessionError.recognitionFailed(Self.describe(failure))
      }
    }

    /// Moves the utterances finished since the last look into ``finals``.
    private func takeFinishedUtterances() {
      guard let utterances = latest?.result?.bestTranscription.finishedUtterances else { return }
      while takenUtterances < utterances.count {
        finals.append(Array(utterances[takenUtterances]))
        takenUtterances += 1
      }
    }

    private func sendResult(_ words: [TranscriptionSegment]) async throws {
      if let last = words.last {
        let end = last.timestamp + last.duration
        if let arrival = arrivals.first(where: { $0.end >= end }) {
          server.metrics.finalResultDelivered(latency: ContinuousClock.now - arrival.at)
        }
        arrivals.removeAll { $0.end < end }
      }
      try await send(.result(words))
    }

    private func send(_ reply: VoskReply) async throws {
      try await outbound.writeTextMessage(reply.json(configuration: configuration))
    }

    private func restartIdleTimer() {
      idleTimer?.cancel()
      idleGeneration += 1
      let generation = idleGeneration
      let timeout = server.configuration.idleTimeout
      let clock = self.clock
      let inbox = self.inbox
      idleTimer = Task {
        guard (try? await clock.sleep(for: timeout)) != nil else { return }
        inbox.post(.idle(generation: generation))
      }
    }

    private static func describe(_ failure: SpeechClient.Failure) -> String {
      switch failure {
      case .modelMissing(let detail): "the speech model is missing (\(detail))"
      case .modelCorrupt(let detail): "the speech model could not be loaded (\(detail))"
      case .decoderFailure(let detail): "the decoder failed (\(detail))"
      case .engineUnavailable(let engine, _): "\(engine) is not installed on this server"
      default: "\(failure)"
      }
    }
  }
}
