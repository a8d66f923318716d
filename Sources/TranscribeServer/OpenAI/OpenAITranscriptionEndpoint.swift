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
  /// The endpoint's path, as logs name it.
  static let path = "/v1/audio/transcriptions"

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
      session = try core.admit(.upload, endpoint: Self.path, remoteAddress: client.address) {
        shutdownNotice.markGone()
      }
    } catch {
      throw OpenAIError(error, retryAfter: core.configuration.retryAfterSeconds)
    }
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
      outcome = .failed("cannot create a directory for the upload")
      throw .recognitionFailed("cannot create a temporary directory for the upload")
    }
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("upload")
    // Reading ends when the body does, when the client leaves, when the body falls behind the
    // slowest pace allowed, or after the longest a session may run; recognition then gets
    // what is left of that time.
    let maxDuration = core.configuration.maxSessionDuration
    let started = ContinuousClock.now
    let pace = UploadPace(
      minimumRate: core.configuration.minimumUploadRate,
      grace: core.configuration.uploadRateGrace)
    let body = await Self.bounded(
      within: maxDuration, on: core.clock, whileConnected: client.connection, pace: pace,
      untilShutdown: shutdownNotice
    ) { () async -> Result<OpenAITranscriptionOptions, OpenAIError> in
      do throws(OpenAIError) {
        return .success(
          try await readUpload(request, boundary: boundary, limit: limit, into: file, pace: pace))
      } catch {
        return .failure(error)
      }
    }
    do throws(OpenAIError) {
      let options: OpenAITranscriptionOptions
      switch body {
      case .finished(let result): options = try result.get()
      case .clientGone: throw .clientGone
      case .timedOut: throw .sessionTooLong(limit: maxDuration)
      case .tooSlow: throw .uploadTooSlow(minimumRate: pace.minimumRate, grace: pace.grace)
      case .shutdown: throw .shuttingDown(retryAfter: core.configuration.retryAfterSeconds)
      }
      guard !shutdownNotice.isGone else {
        throw .shuttingDown(retryAfter: core.configuration.retryAfterSeconds)
      }
      // A file that declares more audio than allowed is refused before a sample is decoded.
      let audioLimit = core.configuration.maxUploadAudioDuration
      if let seconds = core.recognizers.declaredAudioDuration(file),
        seconds > audioLimit.timeInterval
      {
        throw .audioTooLong(seconds: seconds, limit: audioLimit)
      }
      do throws(AdmissionRefusal) {
        try session.takePlace()
      } catch {
        throw OpenAIError(error, retryAfter: core.configuration.retryAfterSeconds)
      }
      let decodingStarted = ContinuousClock.now
      let session = await Self.recognize(
        file, engine: options.engine, client: core.makeSpeechClient(),
        connection: client.connection, shutdownNotice: shutdownNotice,
        shutdownGracePeriod: core.configuration.shutdownGracePeriod,
        maximumAudioDuration: audioLimit,
        timeLimit: max(.zero, maxDuration - (decodingStarted - started)), clock: core.clock)
      // A handler whose task was cancelled (its connection closed) has no one to answer.
      if session.ending == nil, Task.isCancelled { throw .clientGone }
      switch session.ending {
      case .clientGone: throw .clientGone
      case .tooLong: throw .sessionTooLong(limit: maxDuration)
      case .shutdown: throw .shuttingDown(retryAfter: core.configuration.retryAfterSeconds)
      case .recognized, nil: break
      }
      let transcription = try Self.transcription(of: session.recognition)
      core.metrics.decoded(
        audioSeconds: transcription.duration,
        processingSeconds: (ContinuousClock.now - decodingStarted).timeInterval,
        engine: (options.engine ?? core.configuration.engines.first)?.rawValue ?? "default")
      outcome = .finished
      audioSeconds = transcription.duration
      return transcription.response(
        format: options.responseFormat, granularities: options.timestampGranularities)
    } catch {
      switch error {
      case .clientGone: outcome = .clientClosed
      case .sessionTooLong: outcome = .tooLong
      case .shuttingDown: outcome = .shutdown
      default:
        outcome = error.status.code < 500 ? .badInput(error.message) : .failed(error.message)
      }
      throw error
    }
  }

  /// How a bounded piece of work ended.
  enum BoundedEnding<Value: Sendable>: Sendable {
    /// The work finished with `Value`.
    case finished(Value)
    /// The client left first; the work was cancelled.
    case clientGone
    /// The time limit passed first; the work was cancelled.
    case timedOut
    /// The body fell behind the slowest pace allowed; the work was cancelled.
    case tooSlow
    /// The server began to shut down; the work was cancelled.
    case shutdown
  }

  /// Runs `work` until it finishes, `connection`'s client leaves, `limit` passes on `clock`, or
  /// `pace` falls behind, whichever comes first, and cancels the others; returns once `work`
  /// has stopped.
  static func bounded<Value: Sendable>(
    within limit: Duration, on clock: any Clock<Duration>,
    whileConnected connection: ClientConnection, pace: UploadPace? = nil,
    untilShutdown shutdownNotice: ClientConnection? = nil,
    _ work: @escaping @Sendable () async -> Value
  ) async -> BoundedEnding<Value> {
    await withTaskGroup(of: BoundedEnding<Value>?.self) { group in
      group.addTask { .finished(await work()) }
      if let shutdownNotice {
        group.addTask {
          await shutdownNotice.waitUntilGone()
          return Task.isCancelled ? nil : .shutdown
        }
      }
      if let pace {
        group.addTask { await pace.waitUntilBehind(on: clock) ? .tooSlow : nil }
      }
      group.addTask {
        await connection.waitUntilGone()
        return Task.isCancelled ? nil : .clientGone
      }
      group.addTask {
        (try? await clock.sleep(for: limit)) == nil ? nil : .timedOut
      }
      var ending: BoundedEnding<Value>?
      while ending == nil, let next = await group.next() {
        ending = next
      }
      group.cancelAll()
      return ending ?? .clientGone
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
    guard upload.fileBytes > 0 else { throw .unreadableAudio(reason: "the file is empty") }
    if let engine = options.engine, !core.configuration.engines.contains(engine) {
      throw .engineNotInstalled(engine.rawValue)
    }
    return options
  }

  /// Runs an ``UploadSession`` on `file` until it ends: recognition's outcome, the client
  /// leaving `connection`, or `timeLimit` on `clock`.
  @MainActor
  static func recognize(
    _ file: URL, engine: SpeechRecognitionRequest.EngineName? = nil, client: SpeechClient,
    connection: ClientConnection = ClientConnection(),
    shutdownNotice: ClientConnection = ClientConnection(),
    shutdownGracePeriod: Duration = .seconds(10), maximumAudioDuration: Duration? = nil,
    timeLimit: Duration = .seconds(3600), clock: any Clock<Duration> = ContinuousClock()
  ) async -> UploadSession.State {
    // Past the limit the client reads no further, whatever the header said.
    let request = SpeechRecognitionRequest(
      source: .file(file), engine: engine.map(\.defaultEngine) ?? .automatic,
      shouldReportPartialResults: false, maximumAudioDuration: maximumAudioDuration)
    let store = Store(initialState: UploadSession.State(request: request)) {
      UploadSession(timeLimit: timeLimit, shutdownGracePeriod: shutdownGracePeriod)
    } withDependencies: {
      $0.speechClient = client
      $0.continuousClock = clock
    }
    let states = store.states(bufferingPolicy: .bufferingNewest(1))
    store.send(.start)
    // One group: watchers for the client leaving and the server shutting down, cancelled once
    // the session has ended (or the handler was cancelled: letting the store go cancels its
    // effects).
    return await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await connection.waitUntilGone()
        guard !Task.isCancelled else { return }
        _ = await store.send(.clientLeft)
      }
      group.addTask {
        await shutdownNotice.waitUntilGone()
        guard !Task.isCancelled else { return }
        _ = await store.send(.shutdown)
      }
      defer { group.cancelAll() }
      for await state in states where state.ending != nil {
        return state
      }
      return store.state
    }
  }

  /// The transcript of a finished session, or the error that explains why there is none.
  static func transcription(
    of state: SpeechRecognition.State
  ) throws(OpenAIError) -> OpenAITranscription {
    if let problem = RecognitionProblem(state.outcome) { throw OpenAIError(problem) }
    return OpenAITranscription(state.result)
  }

}
