import Architecture
import Foundation
import Hummingbird
import Logging
import SpeechClient
import SpeechRecognitionFeature

extension TranscriptionServer {
  /// Adds `POST /v1/audio/transcriptions`, OpenAI's transcription endpoint, so OpenAI's SDKs
  /// work with `base_url` pointed at this server.
  ///
  /// Each upload is streamed to a temporary file in `temporaryDirectory` (removed afterwards,
  /// whatever happens) and recognized by its own `SpeechRecognition` store with a client from
  /// ``makeSpeechClient``, as a `.file` source. It holds one of ``sessions``'s places from
  /// before its body is read until the answer: without a free place it is answered 503 with
  /// `Retry-After`. With a ``ServerConfiguration/token``, requests without it get 401.
  ///
  /// ```sh
  /// curl -F file=@talk.wav -F response_format=srt http://127.0.0.1:2700/v1/audio/transcriptions
  /// ```
  public func addTranscriptionRoutes<Context: RequestContext>(
    to router: some RouterMethods<Context>,
    temporaryDirectory: URL = FileManager.default.temporaryDirectory
  ) {
    let endpoint = OpenAITranscriptionEndpoint(server: self, temporaryDirectory: temporaryDirectory)
    router.group("v1/audio")
      .add(middleware: AccessTokenMiddleware(server: self))
      .post("transcriptions") { request, context in
        await endpoint.respond(to: request, from: RequestClient(context))
      }
    let models = OpenAIModelList(engines: configuration.engines)
    router.group("v1")
      .add(middleware: AccessTokenMiddleware(server: self))
      .get("models") { _, _ in models.response() }
  }
}

/// Answers one upload: checks it, reads it to disk, recognizes it, formats the transcript.
struct OpenAITranscriptionEndpoint: Sendable {
  let server: TranscriptionServer
  let temporaryDirectory: URL
  /// What a 503 asks the client to wait, in seconds.
  static let retryAfterSeconds = 1
  /// The endpoint's path, as logs name it.
  static let path = "/v1/audio/transcriptions"

  /// The transcript, or the error in OpenAI's shape.
  func respond(to request: Request, from client: RequestClient) async -> Response {
    do {
      return try await transcribe(request, from: client)
    } catch {
      guard error != .clientGone else { return error.response() }
      server.logger.info(
        "transcription refused",
        metadata: ["status": "\(error.status.code)", "reason": "\(error.message)"])
      return error.response()
    }
  }

  func transcribe(
    _ request: Request, from client: RequestClient
  ) async throws(OpenAIError) -> Response {
    let limit = server.configuration.maxUploadBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw .uploadTooLarge(limit: limit)
    }
    let contentType = request.headers[.contentType]
    guard let boundary = OpenAIUploadReader.boundary(contentType: contentType) else {
      throw .notMultipart(contentType: contentType)
    }
    guard let permit = server.sessions.acquire() else {
      server.reject(.capacity, endpoint: Self.path, remoteAddress: client.address)
      throw .noCapacity(retryAfter: Self.retryAfterSeconds)
    }
    server.metrics.sessionStarted()
    let log = SessionLog(server.logger, endpoint: Self.path, remoteAddress: client.address)
    log.started()
    var outcome = SessionOutcome.clientClosed
    var audioSeconds = 0.0
    defer {
      permit.release()
      server.metrics.sessionEnded()
      log.ended(outcome, audioSeconds: audioSeconds)
    }
    // The session ends when its work does, when the client leaves (the decoder stops at
    // once), or after the longest a session may run.
    let maxDuration = server.configuration.maxSessionDuration
    let ending = await Self.bounded(
      within: maxDuration, on: server.clock, whileConnected: client.connection
    ) { () async -> Result<(response: Response, audioSeconds: Double), OpenAIError> in
      do throws(OpenAIError) {
        return .success(try await transcribe(request, boundary: boundary, limit: limit))
      } catch {
        return .failure(error)
      }
    }
    switch ending {
    case .finished(.success(let response)):
      outcome = .finished
      audioSeconds = response.audioSeconds
      return response.response
    case .finished(.failure(let error)):
      outcome = error.status.code < 500 ? .badInput(error.message) : .failed(error.message)
      throw error
    case .clientGone:
      outcome = .clientClosed
      throw .clientGone
    case .timedOut:
      outcome = .tooLong
      throw .sessionTooLong(limit: maxDuration)
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
  }

  /// Runs `work` until it finishes, `connection`'s client leaves, or `limit` passes on `clock`,
  /// whichever comes first, and cancels the others; returns once `work` has stopped.
  static func bounded<Value: Sendable>(
    within limit: Duration, on clock: any Clock<Duration>,
    whileConnected connection: ClientConnection,
    _ work: @escaping @Sendable () async -> Value
  ) async -> BoundedEnding<Value> {
    await withTaskGroup(of: BoundedEnding<Value>?.self) { group in
      group.addTask { .finished(await work()) }
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

  /// Reads the upload into a temporary file and transcribes it.
  private func transcribe(
    _ request: Request, boundary: String, limit: Int
  ) async throws(OpenAIError) -> (response: Response, audioSeconds: Double) {

    let file = temporaryDirectory.appendingPathComponent("transcribe-upload-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    let upload = try await OpenAIUploadReader(limit: limit)
      .read(request.body, boundary: boundary, into: file)
    guard upload.hasFile else { throw .missingField("file") }
    let options = try OpenAITranscriptionOptions(fields: upload.fields)
    guard upload.fileBytes > 0 else { throw .unreadableAudio(reason: "the file is empty") }

    let engines = server.configuration.engines
    if let engine = options.engine, !engines.contains(engine) {
      throw .engineNotInstalled(engine.rawValue)
    }
    let started = ContinuousClock.now
    let state = await Self.recognize(
      file, engine: options.engine, client: server.makeSpeechClient())
    let transcription = try Self.transcription(of: state)
    server.metrics.decoded(
      audioSeconds: transcription.duration,
      processingSeconds: (ContinuousClock.now - started).timeInterval,
      engine: (options.engine ?? engines.first)?.rawValue ?? "default")
    let response = transcription.response(
      format: options.responseFormat, granularities: options.timestampGranularities)
    return (response, transcription.duration)
  }

  /// Runs the `SpeechRecognition` store on `file` until the session's outcome.
  @MainActor
  static func recognize(
    _ file: URL, engine: SpeechRecognitionRequest.EngineName? = nil, client: SpeechClient
  ) async -> SpeechRecognition.State {
    let request = SpeechRecognitionRequest(
      source: .file(file), engine: engine.map(\.defaultEngine) ?? .automatic,
      shouldReportPartialResults: false)
    let store = Store(initialState: SpeechRecognition.State(request: request)) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechClient = client
    }
    let states = store.states(bufferingPolicy: .bufferingNewest(1))
    store.send(.recordButtonTapped)
    for await state in states where state.outcome != nil {
      return state
    }
    // Cancelled (the client went away): letting the store go cancels its effects.
    return store.state
  }

  /// The transcript of a finished session, or the error that explains why there is none.
  static func transcription(
    of state: SpeechRecognition.State
  ) throws(OpenAIError) -> OpenAITranscription {
    switch state.outcome {
    case .finished:
      return OpenAITranscription(state.result)
    case .failed(.fileUnreadable(_, let reason)):
      throw .unreadableAudio(reason: reason)
    case .failed(.engineUnavailable(let engine, _)):
      throw .engineNotInstalled(engine)
    case .failed(let failure):
      throw .recognitionFailed(Self.describe(failure))
    case .notAuthorized(let authorization):
      if case .engineUnavailable(let engine, _) = authorization.reason {
        throw .engineNotInstalled(engine)
      }
      throw .recognitionFailed(
        authorization.reason.map(Self.describe)
          ?? "recognition is not available (\(authorization.status.rawValue))")
    case .stopTimedOut:
      throw .recognitionFailed("the recognizer did not deliver its last words in time")
    case .cancelled, nil:
      throw .recognitionFailed("the session was cancelled")
    }
  }

  /// A failure in words, without the server's file paths.
  static func describe(_ failure: SpeechClient.Failure) -> String {
    switch failure {
    case .modelMissing: "the speech model is not installed"
    case .modelCorrupt: "the speech model cannot be loaded"
    case .decoderFailure(let reason): "the decoder failed (\(reason))"
    case .engineUnavailable(let engine, _): "\(engine) is not installed on this server"
    default: "\(failure)"
    }
  }
}
