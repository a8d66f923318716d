import Foundation
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

@Suite struct OpenAITranscriptionRoutesTests {
  let uri = "/v1/audio/transcriptions"
  let multipart: HTTPFields = [.contentType: MultipartBody.contentType]

  func server(
    _ client: @escaping @Sendable () -> SpeechClient, token: String? = nil, maxSessions: Int = 2,
    maxUploadBytes: Int = 100 << 20
  ) -> TranscriptionServer {
    TranscriptionServer(
      configuration: ServerConfiguration(
        port: 0, maxSessions: maxSessions, token: token.map(AccessToken.init),
        maxUploadBytes: maxUploadBytes),
      makeSpeechClient: client)
  }

  @Test func jsonAnswersTheWordsOfTheUploadThroughTheServersApplication() async throws {
    let scripted = ScriptedSpeechClient()
    let server = server { scripted.client }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go forward | ten meters", [("model", "whisper-1")])
      ) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/json")
        #expect(String(buffer: response.body) == #"{"text":"go forward ten meters"}"#)
      }
    }
  }

  @Test func theClientReadsExactlyTheUploadedBytesFromAFileThatIsGoneAfterwards() async throws {
    let scripted = ScriptedSpeechClient()
    let directory = try UploadDirectory()
    let server = server { scripted.client }
    // Line breaks and most of a boundary (a client never sends all of it) must reach the file
    // unchanged.
    let audio =
      Array("AUDIO one\r\n--\(MultipartBody.boundary.dropLast())!\r\n\r\n two".utf8)
      + [0, 255, 13]
    var body = MultipartBody()
    body.field("response_format", "text")
    body.file(audio)
    let upload = body.buffer
    try await server.transcriptionApplication(uploadsIn: directory.url).test(.router) { client in
      let response = try await client.execute(
        uri: uri, method: .post, headers: multipart, body: upload)
      #expect(response.status == .ok)
    }
    let requested = try #require(scripted.requested.all.first)
    #expect(requested.contents == Data(audio))
    // In a directory of its own under the uploads directory.
    #expect(
      requested.url.deletingLastPathComponent().deletingLastPathComponent().path
        == directory.url.path)
    #expect(!FileManager.default.fileExists(atPath: requested.url.path))
    #expect(directory.files.isEmpty)
    #expect(server.sessions.activeCount == 0)
  }

  @Test(arguments: [
    ("text", "text/plain; charset=utf-8", "go forward ten meters\n"),
    (
      "srt", "text/plain; charset=utf-8",
      "1\n00:00:00,000 --> 00:00:00,900\ngo forward\n\n2\n00:00:02,000 --> 00:00:02,900\nten meters\n\n"
    ),
    (
      "vtt", "text/vtt; charset=utf-8",
      "WEBVTT\n\n00:00:00.000 --> 00:00:00.900\ngo forward\n\n00:00:02.000 --> 00:00:02.900\nten meters\n\n"
    ),
  ])
  func plainFormatsAnswerTheTranscriptAsText(
    format: String, contentType: String, expected: String
  ) async throws {
    let scripted = ScriptedSpeechClient()
    try await server { scripted.client }.makeApplication().test(.router) { client in
      try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go forward | ten meters", [("response_format", format)])
      ) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == contentType)
        #expect(String(buffer: response.body) == expected)
      }
    }
  }

  @Test func verboseJSONHasSegmentsByDefaultAndWordsWhenAsked() async throws {
    let scripted = ScriptedSpeechClient()
    try await server { scripted.client }.makeApplication().test(.router) { client in
      let plain = try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go forward | ten", [("response_format", "verbose_json")]))
      let verbose =
        try JSONSerialization.jsonObject(with: Data(plain.body.readableBytesView))
        as? [String: Any]
      #expect(verbose?["task"] as? String == "transcribe")
      #expect(verbose?["language"] as? String == "english")
      #expect(verbose?["duration"] as? Double == 3.5)
      #expect(verbose?["text"] as? String == "go forward ten")
      #expect((verbose?["segments"] as? [Any])?.count == 2)
      #expect(verbose?["words"] == nil)

      let both = try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload(
          "AUDIO go forward | ten",
          [
            ("response_format", "verbose_json"), ("timestamp_granularities[]", "word"),
            ("timestamp_granularities[]", "segment"),
          ]))
      let object =
        try JSONSerialization.jsonObject(with: Data(both.body.readableBytesView))
        as? [String: Any]
      let words = try #require(object?["words"] as? [[String: Any]])
      #expect(words.map { $0["word"] as? String } == ["go", "forward", "ten"])
      #expect(words.map { $0["start"] as? Double } == [0, 0.5, 2])
      #expect(words.map { $0["end"] as? Double } == [0.4, 0.9, 2.4])
      #expect((object?["segments"] as? [Any])?.count == 2)

      let wordsOnly = try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload(
          "AUDIO go", [("response_format", "verbose_json"), ("timestamp_granularities[]", "word")]))
      let onlyWords =
        try JSONSerialization.jsonObject(
          with: Data(wordsOnly.body.readableBytesView)) as? [String: Any]
      #expect(onlyWords?["segments"] == nil)
      #expect((onlyWords?["words"] as? [Any])?.count == 1)
    }
  }

  @Test func aChunkingStrategyReachesTheRecognizersRequest() async throws {
    let seen = Mutex<[SpeechRecognitionRequest]>([])
    let scripted = ScriptedSpeechClient()
    let recording = SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { request in
        seen.withLock { $0.append(request) }
        return await scripted.client.startTask(request)
      },
      finishTask: {}, captureDevices: { [] })
    let server = server { recording }
    try await server.makeApplication().test(.router) { client in
      for strategy in [
        #"{"type":"server_vad","threshold":0.6,"silence_duration_ms":900}"#, "auto",
      ] {
        let response = try await client.execute(
          uri: uri, method: .post, headers: multipart,
          body: MultipartBody.upload("AUDIO go", [("chunking_strategy", strategy)]))
        #expect(response.status == .ok)
      }
    }
    #expect(
      seen.withLock { $0.map(\.voiceActivity) }
        == [VoiceActivityTuning(threshold: 0.6, minimumSilence: 0.9, judgesSentences: false), nil])
  }

  @Test func jsonWithIncludeLogprobsHasEachWordsLogProbability() async throws {
    var quiet = ScriptedSpeechClient()
    quiet.confidence = 0.25
    let scripted = quiet
    let server = server { scripted.client }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go | on", [("include[]", "logprobs")])
      ) { response in
        #expect(response.status == .ok)
        let answer = try JSONDecoder().decode(
          OpenAITranscription.Simple.self, from: Data(response.body.readableBytesView))
        #expect(answer.text == "go on")
        #expect(
          answer.logprobs == [
            .init(token: "go", bytes: Array("go".utf8), logprob: log(0.25)),
            .init(token: "on", bytes: Array("on".utf8), logprob: log(0.25)),
          ])
      }
      // Without it, the answer is the text alone, as before.
      try await client.execute(
        uri: uri, method: .post, headers: multipart, body: MultipartBody.upload("AUDIO go")
      ) { response in
        #expect(String(buffer: response.body) == #"{"text":"go"}"#)
      }
    }
  }

  @Test(arguments: [
    ([("response_format", "docx")], "response_format", "`docx` is not a valid `response_format`"),
    ([("timestamp_granularities[]", "word")], "timestamp_granularities[]", "verbose_json"),
    (
      [("response_format", "verbose_json"), ("timestamp_granularities[]", "letter")],
      "timestamp_granularities[]", "word or segment"
    ),
    ([("language", "de")], "language", "English"),
    ([("temperature", "hot")], "temperature", "from 0 to 1"),
    ([("stream", "yes")], "stream", "true or false"),
    ([("response_format", "srt"), ("stream", "true")], "stream", "json or text"),
  ])
  func badFieldsAreAnswered400NamingTheField(
    fields: [(String, String)], param: String, message: String
  ) async throws {
    let scripted = ScriptedSpeechClient()
    let directory = try UploadDirectory()
    let server = server { scripted.client }
    try await server.transcriptionApplication(uploadsIn: directory.url).test(.router) { client in
      let response = try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go", fields))
      #expect(response.status == .badRequest)
      let error = try openAIError(response.body)
      #expect(error.type == "invalid_request_error")
      #expect(error.param == param)
      #expect(error.message.contains(message), "\(error.message)")
    }
    #expect(scripted.requested.all.isEmpty)
    #expect(directory.files.isEmpty)
    #expect(server.sessions.activeCount == 0)
  }

  @Test func anUploadWithoutAFileIsAnswered400() async throws {
    let scripted = ScriptedSpeechClient()
    var form = MultipartBody()
    form.field("model", "whisper-1")
    let body = form.buffer
    try await server { scripted.client }.makeApplication().test(.router) { client in
      let response = try await client.execute(
        uri: uri, method: .post, headers: multipart, body: body)
      #expect(response.status == .badRequest)
      let error = try openAIError(response.body)
      #expect(error.param == "file")
      #expect(error.message == "The `file` field is required.")
    }
  }

  @Test func aBodyThatIsNotMultipartIsAnswered400() async throws {
    let scripted = ScriptedSpeechClient()
    try await server { scripted.client }.makeApplication().test(.router) { client in
      let response = try await client.execute(
        uri: uri, method: .post, headers: [.contentType: "application/json"],
        body: ByteBuffer(string: #"{"file": "speech.wav"}"#))
      #expect(response.status == .badRequest)
      #expect(try openAIError(response.body).message.contains("multipart/form-data"))
    }
  }

  @Test func anUploadTheRecognizerCannotReadIsAnswered400WithItsReason() async throws {
    let scripted = ScriptedSpeechClient()
    let directory = try UploadDirectory()
    let server = server { scripted.client }
    try await server.transcriptionApplication(uploadsIn: directory.url).test(.router) { client in
      let response = try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("just some text"))
      #expect(response.status == .badRequest)
      let error = try openAIError(response.body)
      #expect(error.param == "file")
      #expect(error.code == "invalid_file_format")
      #expect(error.message.contains("File contains data in an unknown format"))
      // The server's paths stay on the server.
      #expect(!error.message.contains(directory.url.path))
    }
    #expect(scripted.requested.all.count == 1)
    #expect(directory.files.isEmpty)
    #expect(server.sessions.activeCount == 0)
  }

  @Test func anUploadOverTheLimitIsAnswered413BeforeItIsRead() async throws {
    let scripted = ScriptedSpeechClient()
    let directory = try UploadDirectory()
    let server = server({ scripted.client }, maxUploadBytes: 1000)
    try await server.transcriptionApplication(uploadsIn: directory.url).test(.router) { client in
      let response = try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO " + String(repeating: "x", count: 2000)))
      #expect(response.status == .contentTooLarge)
      let error = try openAIError(response.body)
      #expect(error.code == "file_too_large")
      #expect(error.message.contains("1000 bytes"))
    }
    #expect(scripted.requested.all.isEmpty)
    #expect(directory.files.isEmpty)
    #expect(server.sessions.activeCount == 0)
  }

  @Test func aFileDeclaringMoreAudioThanTheLimitIsAnswered413BeforeDecoding() async throws {
    // A client that must not be asked: the header alone decides.
    var server = server { SpeechClient.testValue }
    server.configuration.maxUploadAudioDuration = .seconds(7200)
    #expect(ServerConfiguration().maxUploadAudioDuration == .seconds(7200))
    server.uploadAudioDuration = { _ in 36_000 }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: uri, method: .post, headers: multipart, body: MultipartBody.upload("AUDIO bomb")
      ) { response in
        #expect(response.status == .contentTooLarge)
        let error = try openAIError(response.body)
        #expect(error.code == "audio_too_long")
        #expect(error.param == "file")
        #expect(
          error.message
            == "The uploaded `file` holds 36000 s of audio, more than this server's limit of "
            + "7200 s per upload (serve --max-upload-seconds); split it into shorter files.")
      }
    }
    #expect(server.sessions.activeCount == 0)
  }

  @Test func aFileWithinTheAudioLimitIsTranscribed() async throws {
    let scripted = ScriptedSpeechClient()
    var server = server { scripted.client }
    server.uploadAudioDuration = { _ in 7200 }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: uri, method: .post, headers: multipart, body: MultipartBody.upload("AUDIO go")
      ) { response in
        #expect(response.status == .ok)
      }
    }
  }

  @Test func withEverySessionBusyAnUploadIsAnswered503WithRetryAfter() async throws {
    let gated = GatedSpeechClient()
    let directory = try UploadDirectory()
    let server = server({ gated.client }, maxSessions: 1)
    try await server.transcriptionApplication(uploadsIn: directory.url).test(.router) { client in
      let uri = uri
      let multipart = multipart
      let first = Task {
        try await client.execute(
          uri: uri, method: .post, headers: multipart, body: MultipartBody.upload("AUDIO go"))
      }
      await gated.started.first { _ in true }
      #expect(server.sessions.activeCount == 1)
      #expect(directory.files.count == 1)

      let rejected = try await client.execute(
        uri: uri, method: .post, headers: multipart, body: MultipartBody.upload("AUDIO go"))
      #expect(rejected.status == .serviceUnavailable)
      #expect(rejected.headers[.retryAfter] == "1")
      #expect(try openAIError(rejected.body).type == "server_error")

      gated.open()
      #expect(try await first.value.status == .ok)
    }
    #expect(server.sessions.activeCount == 0)
    #expect(directory.files.isEmpty)
    let metrics = server.metrics.exposition()
    #expect(metrics.contains(#"transcribe_rejected_sessions_total{reason="capacity"} 1"#))
    #expect(metrics.contains("transcribe_active_sessions 0"))
  }

  @Test func aClientThatGoesAwayMidRecognitionReleasesItsPlaceAndFile() async throws {
    let gated = GatedSpeechClient()
    let directory = try UploadDirectory()
    let recorder = LogRecorder()
    var configured = server({ gated.client }, maxSessions: 1)
    configured.logger = recorder.logger(level: .info)
    let server = configured
    try await server.transcriptionApplication(uploadsIn: directory.url).test(.router) { client in
      let uri = uri
      let multipart = multipart
      let upload = Task {
        try await client.execute(
          uri: uri, method: .post, headers: multipart, body: MultipartBody.upload("AUDIO go"))
      }
      await gated.started.first { _ in true }
      #expect(server.sessions.activeCount == 1)
      upload.cancel()
      _ = try? await upload.value
    }
    #expect(server.sessions.activeCount == 0)
    #expect(directory.files.isEmpty)
    let ended = try #require(recorder.lines.first { $0.message == "session ended" })
    #expect(ended.metadata["outcome"] == "client_closed")
  }

  @Test func withATokenOnlyRequestsBearingItAreTranscribed() async throws {
    let scripted = ScriptedSpeechClient()
    let server = server({ scripted.client }, token: "s3cret")
    try await server.makeApplication().test(.router) { client in
      for authorization in [nil, "Bearer wrong", "s3cret", "Basic s3cret"] {
        var headers = multipart
        if let authorization { headers[.authorization] = authorization }
        let response = try await client.execute(
          uri: uri, method: .post, headers: headers, body: MultipartBody.upload("AUDIO go"))
        #expect(response.status == .unauthorized, "\(authorization ?? "none")")
        #expect(response.headers[.wwwAuthenticate] == "Bearer")
        let error = try openAIError(response.body)
        #expect(error.code == "invalid_api_key")
        #expect(!String(buffer: response.body).contains("s3cret"))
      }
      var headers = multipart
      headers[.authorization] = "Bearer s3cret"
      let response = try await client.execute(
        uri: uri, method: .post, headers: headers, body: MultipartBody.upload("AUDIO go"))
      #expect(response.status == .ok)
    }
    #expect(scripted.requested.all.count == 1)
    #expect(
      server.metrics.exposition().contains(#"transcribe_rejected_sessions_total{reason="token"} 4"#)
    )
  }

  @Test func aTranscriptionIsCountedInTheMetrics() async throws {
    let scripted = ScriptedSpeechClient()
    let server = server { scripted.client }
    try await server.makeApplication().test(.router) { client in
      _ = try await client.execute(
        uri: uri, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go forward | ten"))
    }
    let metrics = server.metrics.exposition()
    // The server's default engine: ServerConfiguration's, pocketsphinx.
    #expect(
      metrics.contains(#"transcribe_audio_seconds_decoded_total{engine="pocketsphinx"} 3.5"#),
      "\(metrics)")
    #expect(metrics.contains("transcribe_active_sessions 0"))
  }
}

/// Other languages than English and translation, on a server that runs Whisper: what reaches
/// the client, what `verbose_json` says, and what is refused.
@Suite struct OpenAILanguageRoutesTests {
  let multipart: HTTPFields = [.contentType: MultipartBody.contentType]

  func server(
    whisper: Bool, _ client: @escaping @Sendable () -> SpeechClient
  ) -> TranscriptionServer {
    var configuration = ServerConfiguration(port: 0, maxSessions: 2)
    if whisper {
      configuration.engines = [.moonshine, .whisper]
      configuration.languages = [
        ServedLanguage(code: "en", name: "english"), ServedLanguage(code: "de", name: "german"),
      ]
    } else {
      configuration.engines = [.moonshine]
    }
    return TranscriptionServer(configuration: configuration, makeSpeechClient: client)
  }

  @Test func aLanguageAndAPromptReachTheClientAndVerboseJSONNamesTheLanguage() async throws {
    let scripted = ScriptedSpeechClient()
    try await server(whisper: true) { scripted.client }.makeApplication().test(.router) { client in
      let response = try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post, headers: multipart,
        body: MultipartBody.upload(
          "AUDIO guten morgen",
          [
            ("language", "de"), ("prompt", "Kaffee und Kuchen."),
            ("response_format", "verbose_json"),
          ]
        ))
      #expect(response.status == .ok)
      let verbose =
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
        as? [String: Any]
      #expect(verbose?["language"] as? String == "german")
      #expect(verbose?["task"] as? String == "transcribe")
    }
    let request = try #require(scripted.requests.all.first)
    #expect(request.language == .code("de"))
    #expect(request.prompt == "Kaffee und Kuchen.")
    #expect(!request.translates)
  }

  @Test func aTranslationIsWrittenAsEnglishByWhisper() async throws {
    let scripted = ScriptedSpeechClient()
    try await server(whisper: true) { scripted.client }.makeApplication().test(.router) { client in
      let response = try await client.execute(
        uri: "/v1/audio/translations", method: .post, headers: multipart,
        body: MultipartBody.upload(
          "AUDIO good morning", [("model", "whisper-1"), ("response_format", "verbose_json")]))
      #expect(response.status == .ok)
      let verbose =
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
        as? [String: Any]
      #expect(verbose?["task"] as? String == "translate")
      #expect(verbose?["text"] as? String == "good morning")
    }
    let request = try #require(scripted.requests.all.first)
    #expect(request.translates)
    #expect(request.language == .automatic)
  }

  @Test(arguments: [
    (true, "/v1/audio/translations", [("stream", "true")], "stream", "not streamed"),
    (false, "/v1/audio/translations", [], "model", "an engine installed on this server"),
    (true, "/v1/audio/transcriptions", [("language", "xx")], "language", "Whisper knows"),
    (false, "/v1/audio/transcriptions", [("language", "de")], "language", "English"),
    (
      true, "/v1/audio/transcriptions", [("language", "de"), ("model", "moonshine")], "model",
      "translation are Whisper's"
    ),
  ])
  func whatCannotBeDecodedIsAnswered400NamingTheField(
    whisper: Bool, path: String, fields: [(String, String)], param: String, message: String
  ) async throws {
    let scripted = ScriptedSpeechClient()
    try await server(whisper: whisper) { scripted.client }.makeApplication().test(.router) {
      client in
      let response = try await client.execute(
        uri: path, method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go", fields))
      #expect(response.status == .badRequest)
      let error = try openAIError(response.body)
      #expect(error.param == param)
      #expect(error.message.contains(message), "\(error.message)")
    }
    #expect(scripted.requests.all.isEmpty)
  }
}
