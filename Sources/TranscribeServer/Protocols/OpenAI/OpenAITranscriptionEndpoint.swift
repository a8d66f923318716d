import Architecture
import Foundation
import Hummingbird
import Logging
import SpeechClient
import SpeechRecognitionFeature

/// Answers one upload: checks it, reads it to disk, recognizes it, formats the transcript.
struct OpenAITranscriptionEndpoint: Sendable {
  let core: SessionCore
  /// Where uploads are written while they are decoded.
  let temporaryDirectory: URL
  /// What the endpoint does: transcribe, or translate into English.
  var task = Purpose.transcribe
  /// The transcriptions endpoint's path, as logs name it.
  static let path = "/v1/audio/transcriptions"

  /// What an upload asks for.
  enum Purpose: Equatable, Sendable {
    /// `POST /v1/audio/transcriptions`: the words in the language spoken.
    case transcribe
    /// `POST /v1/audio/translations`: the speech written as English (Whisper).
    case translate

    /// The endpoint's path.
    var path: String {
      switch self {
      case .transcribe: OpenAITranscriptionEndpoint.path
      case .translate: "/v1/audio/translations"
      }
    }
  }

  /// The transcript, or the error in OpenAI's shape.
  func respond(to request: Request, from client: RequestClient) async -> Response {
    do {
      return try await transcribe(request, from: client)
    } catch {
      guard error != .clientGone else { return error.response() }
      core.logger.info(
        "transcription refused",
        metadata: ["status": "\(error.status.code)", "reason": "\(error.message)"])
      return error.response()
    }
  }

  func transcribe(
    _ request: Request, from client: RequestClient
  ) async throws(OpenAIError) -> Response {
    let limit = core.configuration.maxUploadBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw .uploadTooLarge(limit: limit)
    }
    let contentType = request.headers[.contentType]
    guard let boundary = OpenAIUploadReader.boundary(contentType: contentType) else {
      throw .notMultipart(contentType: contentType)
    }
    // A session place is taken only once the body is read, so slow senders hold none; but
    // with none free now, the client is told at once rather than after sending its file. A
    // shutdown ends reading at once (the body could not be decoded in time anyway) and gives
    // decoding the grace period streams get.
    let shutdownNotice = ClientConnection()
    let session: AdmittedSession
    do throws(AdmissionRefusal) {
      session = try core.admit(.upload, endpoint: task.path, remoteAddress: client.address) {
        shutdownNotice.markGone()
      }
    } catch {
      throw OpenAIError(error, retryAfter: core.configuration.retryAfterSeconds)
    }
    // The rest runs in a task of its own, so that a streamed answer (`stream=true`) can be
    // written while decoding goes on. This handler waits for the answer, or for the stream to
    // begin; the body of a streamed answer then waits for the task, and cancels it when the
    // client cannot be written to.
    let (updates, continuation) = AsyncStream.makeStream(of: StreamUpdate.self)
    let work = Task { () async -> Result<Response, OpenAIError> in
      defer { continuation.finish() }
      do throws(OpenAIError) {
        return .success(
          try await answer(
            request, from: client, session: session, boundary: boundary,
            shutdownNotice: shutdownNotice, updates: continuation))
      } catch {
        return .failure(error)
      }
    }
    let reply = await withTaskCancellationHandler {
      () async -> Result<Response, OpenAIError> in
      for await update in updates where update == .began {
        return .success(Self.streamedResponse(updates, work: work))
      }
      return await work.value
    } onCancel: {
      work.cancel()
    }
    return try reply.get()
  }

  /// What the task that answers an upload tells the handler: the answer is streamed from now
  /// on, and the events to stream.
  enum StreamUpdate: Equatable, Sendable {
    case began
    case event(OpenAITranscriptStream.Event)
  }

  /// A `200` whose body is the events of `updates`, written as they come, while `work` decodes.
  static func streamedResponse(
    _ updates: AsyncStream<StreamUpdate>, work: Task<Result<Response, OpenAIError>, Never>
  ) -> Response {
    Response(
      status: .ok,
      headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
      body: ResponseBody { writer in
        do {
          for await update in updates {
            guard case .event(let event) = update else { continue }
            try await writer.write(event.serverSentEvent)
          }
          try await writer.finish(nil)
        } catch {
          work.cancel()
          _ = await work.value
          throw error
        }
        _ = await work.value
      })
  }

  /// Reads the upload, decodes it and answers it: with the whole transcript, or (`stream=true`)
  /// by saying ``StreamUpdate/began`` once the body is in and then sending each event of
  /// the transcript to `updates` as it is decoded (the answer returned is then not used).
  private func answer(
    _ request: Request, from client: RequestClient, session: AdmittedSession, boundary: String,
    shutdownNotice: ClientConnection, updates: AsyncStream<StreamUpdate>.Continuation
  ) async throws(OpenAIError) -> Response {
    let limit = core.configuration.maxUploadBytes
    var outcome = SessionOutcome.clientClosed
    var audioSeconds = 0.0
    defer { session.end(outcome, audioSeconds: audioSeconds) }
    // Everything that can refuse the upload from its head has passed: a client waiting for
    // `100 Continue` may send its body now.
    if ExpectContinue.isAwaited(by: request) { await ExpectContinue.send(on: client.channel) }
    // Each upload in a directory of its own that only the server's user can list, the file in
    // it readable by that user alone; both removed whatever happens.
    let directory = temporaryDirectory.appendingPathComponent(
      "transcribe-upload-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: false,
        attributes: [.posixPermissions: 0o700])
    } catch {
      let reason = ProtocolProblem.Upload.Reason.noTemporaryDirectory.text
      outcome = .failed(reason)
      throw .recognitionFailed(reason)
    }
    defer { try? FileManager.default.removeItem(at: directory) }
    let lease = core.executors.lease()
    defer { lease.release() }
    let file = directory.appendingPathComponent("upload")
    let configuration = core.configuration
    let pace = UploadPace(
      minimumRate: configuration.minimumUploadRate, grace: configuration.uploadRateGrace)
    let streamed = StreamedTranscript()
    let (final, received) = await Self.run(
      UploadSession(
        timeLimit: configuration.maxSessionDuration,
        shutdownGracePeriod: configuration.shutdownGracePeriod),
      client: core.makeSpeechClient(), clock: core.clock, executor: lease.executor,
      connection: client.connection, shutdownNotice: shutdownNotice, pace: pace,
      observe: { state in
        for event in streamed.events(for: state.recognition?.result) {
          updates.yield(.event(event))
        }
      }
    ) { () async throws(OpenAIError) -> (SpeechRecognitionRequest, Received) in
      let options = try await readUpload(
        request, boundary: boundary, limit: limit, into: file, pace: pace)
      // A file that declares more audio than allowed is refused before a sample is decoded.
      let audioLimit = configuration.maxUploadAudioDuration
      if let seconds = core.recognizers.declaredAudioDuration(file),
        seconds > audioLimit.timeInterval
      {
        throw .audioTooLong(seconds: seconds, limit: audioLimit)
      }
      do throws(AdmissionRefusal) {
        try session.takePlace()
      } catch {
        throw OpenAIError(error, retryAfter: configuration.retryAfterSeconds)
      }
      if options.stream {
        streamed.begin(
          includesLogprobs: options.includesLogprobs, timestamps: options.streamedTimestamps)
        updates.yield(.began)
      }
      // Past the limit the client reads no further, whatever the header said.
      var recognition = SpeechRecognitionRequest(
        source: .file(file), engine: options.engine.map(\.defaultEngine) ?? .automatic,
        shouldReportPartialResults: false, maximumAudioDuration: audioLimit)
      recognition.voiceActivity = options.chunkingStrategy?.voiceActivity
      recognition.hotwords = options.hotwords
      recognition.prompt = options.prompt
      // A translation's language, when not named, is Whisper's to detect.
      recognition.language =
        task == .translate && options.language == nil
        ? .automatic : try options.requestedLanguage(on: configuration)
      recognition.translates = task == .translate
      return (recognition, Received(options: options, decodingStarted: .now))
    }
    do throws(OpenAIError) {
      var transcription = try Self.transcription(
        of: final, configuration: configuration, pace: pace)
      guard let received else { throw .clientGone }
      transcription.task = task == .translate ? "translate" : "transcribe"
      // The language asked for, or the one detected for `auto`.
      switch try? received.options.requestedLanguage(on: configuration) {
      case .code(let code)?:
        transcription.language = configuration.languageName(code)
      case .automatic?:
        if let code = final.recognition?.result?.progress?.detectedLanguage {
          transcription.language = configuration.languageName(code)
        }
      case nil: break
      }
      core.metrics.decoded(
        audioSeconds: transcription.duration,
        processingSeconds: (ContinuousClock.now - received.decodingStarted).timeInterval,
        engine: (received.options.engine ?? configuration.engines.first)?.rawValue ?? "default")
      outcome = .finished
      audioSeconds = transcription.duration
      if received.options.stream {
        for event in streamed.finish(with: transcription) { updates.yield(.event(event)) }
      }
      return transcription.response(
        format: received.options.responseFormat,
        granularities: received.options.timestampGranularities,
        includesLogprobs: received.options.includesLogprobs)
    } catch {
      switch error {
      case .clientGone: outcome = .clientClosed
      case .sessionTooLong: outcome = .tooLong
      case .shuttingDown: outcome = .shutdown
      default:
        outcome = error.status.code < 500 ? .badInput(error.message) : .failed(error.message)
      }
      if streamed.hasBegun, error != .clientGone {
        // The status was `200` already: the error is the stream's last event.
        core.logger.info(
          "transcription refused",
          metadata: ["status": "\(error.status.code)", "reason": "\(error.message)"])
        updates.yield(.event(.error(error)))
      }
      throw error
    }
  }

  /// What the host learns from a body it has read: the options, and when decoding began.
  struct Received: Sendable {
    var options: OpenAITranscriptionOptions
    var decodingStarted: ContinuousClock.Instant
  }

  /// The transcript of an upload that ended in `state`, or the error that answers it.
  static func transcription(
    of state: UploadSession.State, configuration: ServerConfiguration, pace: UploadPace
  ) throws(OpenAIError) -> OpenAITranscription {
    switch state.ending {
    case .rejected(let error): throw error
    case .clientGone: throw .clientGone
    case .tooLong: throw .sessionTooLong(limit: configuration.maxSessionDuration)
    case .tooSlow: throw .uploadTooSlow(minimumRate: pace.minimumRate, grace: pace.grace)
    case .shutdown: throw .shuttingDown(retryAfter: configuration.retryAfterSeconds)
    case .recognized, nil: break
    }
    // A handler whose task was cancelled (its connection closed) has no one to answer.
    guard let recognition = state.recognition, state.ending != nil || !Task.isCancelled else {
      throw .clientGone
    }
    return try transcription(of: recognition)
  }

  /// Runs one ``UploadSession`` store until the session ends, and returns its last state and
  /// what `receive` returned, if it finished.
  ///
  /// One task group: `receive` (reading the body; its request starts recognition, its error
  /// ends the session), watchers for the client leaving, the server shutting down and the
  /// body falling behind `pace`; the group is cancelled once the session has ended (or the
  /// handler was cancelled: letting the store go cancels its effects). What to do about each
  /// is the session's decision. `observe` sees each state the session goes through (the newest
  /// when several come at once), up to the one that ends it. The store is the session's own
  /// actor on `executor` (the core's next, as every session's), so uploads reduce in parallel,
  /// off the main actor.
  static func run<Received: Sendable>(
    _ session: UploadSession, client: SpeechClient, clock: any Clock<Duration>,
    executor: ThreadExecutor = ThreadExecutor.next(),
    connection: ClientConnection, shutdownNotice: ClientConnection, pace: UploadPace? = nil,
    observe: (UploadSession.State) -> Void = { _ in },
    receive:
      @escaping @Sendable () async throws(OpenAIError) -> (SpeechRecognitionRequest, Received)
  ) async -> (state: UploadSession.State, received: Received?) {
    let store = ActorStore(initialState: UploadSession.State(), executor: executor) {
      session
    } withDependencies: {
      $0.speechClient = client
      $0.continuousClock = clock
    }
    let states = await store.states(bufferingPolicy: .bufferingNewest(1))
    await store.send(.start)
    return await withTaskGroup(of: Received?.self) { group in
      group.addTask {
        do throws(OpenAIError) {
          let (request, received) = try await receive()
          _ = await store.send(.bodyReceived(request))
          return received
        } catch {
          if !Task.isCancelled { _ = await store.send(.bodyRejected(error)) }
          return nil
        }
      }
      group.addTask {
        await connection.waitUntilGone()
        if !Task.isCancelled { _ = await store.send(.clientLeft) }
        return nil
      }
      group.addTask {
        await shutdownNotice.waitUntilGone()
        if !Task.isCancelled { _ = await store.send(.shutdown) }
        return nil
      }
      if let pace {
        group.addTask {
          if await pace.waitUntilBehind(on: clock) { _ = await store.send(.bodyTooSlow) }
          return nil
        }
      }
      var final = await store.state
      for await state in states {
        observe(state)
        guard state.ending != nil else { continue }
        final = state
        break
      }
      group.cancelAll()
      var received: Received?
      for await value in group where value != nil { received = value }
      return (final, received)
    }
  }

  /// Reads the upload into `file` and checks its fields; returns its options.
  private func readUpload(
    _ request: Request, boundary: String, limit: Int, into file: URL, pace: UploadPace
  ) async throws(OpenAIError) -> OpenAITranscriptionOptions {
    let upload = try await OpenAIUploadReader(
      limit: limit, fieldLimit: core.configuration.maxUploadFieldBytes,
      headerLimit: core.configuration.maxUploadPartHeaderBytes
    )
    .read(request.body, boundary: boundary, into: file) { pace.received($0) }
    guard upload.hasFile else { throw .missingField("file") }
    let options = try OpenAITranscriptionOptions(fields: upload.fields)
    guard upload.fileBytes > 0 else {
      throw .unreadableAudio(reason: ProtocolProblem.Upload.Reason.emptyFile.text)
    }
    if let engine = options.engine, !core.configuration.engines.contains(engine) {
      throw .engineNotInstalled(engine.rawValue)
    }
    let language = try options.requestedLanguage(on: core.configuration)
    if task == .translate {
      // Only Whisper translates, and OpenAI streams no translation.
      guard core.configuration.engines.contains(.whisper) else {
        throw .engineNotInstalled(SpeechRecognitionRequest.EngineName.whisper.rawValue)
      }
      if options.stream {
        throw .invalid("stream", value: "true", expected: .noStreamedTranslation)
      }
    }
    // Another language than English, or a translation, is Whisper's: a model that names
    // another engine cannot decode it.
    if let engine = options.engine, engine != .whisper, !language.isEnglish || task == .translate {
      throw .invalid(
        "model", value: options.model ?? engine.rawValue, expected: .whisperForLanguage)
    }
    return options
  }

  /// The transcript of a finished session, or the error that explains why there is none.
  static func transcription(
    of state: SpeechRecognition.State
  ) throws(OpenAIError) -> OpenAITranscription {
    if let problem = RecognitionProblem(state.outcome) { throw OpenAIError(problem) }
    return OpenAITranscription(state.result)
  }

}
