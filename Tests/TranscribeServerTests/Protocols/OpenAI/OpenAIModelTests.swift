import Foundation
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// `GET /v1/models` and the `model` field of an upload: which engine decodes it.
@Suite struct OpenAIModelTests {
  let multipart: HTTPFields = [.contentType: MultipartBody.contentType]

  /// A server with `engines` whose client records the engine of every request in `log`.
  func server(
    engines: [SpeechRecognitionRequest.EngineName], token: String? = nil,
    log: EngineLog = EngineLog()
  ) -> TranscriptionServer {
    var configuration = ServerConfiguration(port: 0, token: token.map(AccessToken.init))
    configuration.engines = engines
    let scripted = ScriptedSpeechClient()
    return TranscriptionServer(configuration: configuration) {
      var client = scripted.client
      let startTask = client.startTask
      client.startTask = { request in
        log.append(request.engine)
        return await startTask(request)
      }
      return client
    }
  }

  /// The engines requests named, in order.
  final class EngineLog: Sendable {
    private let engines = Mutex<[SpeechRecognitionRequest.Engine]>([])
    func append(_ engine: SpeechRecognitionRequest.Engine) {
      engines.withLock { $0.append(engine) }
    }
    var all: [SpeechRecognitionRequest.Engine] { engines.withLock { $0 } }
  }

  @Test func modelsListsTheServersEnginesDefaultFirstAsOpenAIsListDoes() async throws {
    let server = server(engines: [.moonshine, .pocketsphinx])
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/v1/models", method: .get) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/json")
        #expect(
          String(buffer: response.body)
            == #"{"data":[{"created":0,"id":"moonshine","object":"model","owned_by":"transcribe"},"#
            + #"{"created":0,"id":"pocketsphinx","object":"model","owned_by":"transcribe"}],"#
            + #""object":"list"}"#)
      }
    }
  }

  @Test func modelsNeedsTheTokenWhenOneIsSet() async throws {
    let server = server(engines: [.pocketsphinx], token: "s3cret")
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/v1/models", method: .get) { response in
        #expect(response.status == .unauthorized)
      }
      try await client.execute(
        uri: "/v1/models", method: .get, headers: [.authorization: "Bearer s3cret"]
      ) { response in
        #expect(response.status == .ok)
      }
    }
  }

  @Test func anUploadsModelPicksTheEngineAndOtherNamesMeanTheDefault() async throws {
    let log = EngineLog()
    let server = server(engines: [.moonshine, .pocketsphinx], log: log)
    try await server.makeApplication().test(.router) { client in
      for model in ["moonshine", "pocketsphinx", "whisper-1", "Moonshine"] {
        try await client.execute(
          uri: "/v1/audio/transcriptions", method: .post, headers: multipart,
          body: MultipartBody.upload("AUDIO go forward", [("model", model)])
        ) { response in
          #expect(response.status == .ok)
        }
      }
    }
    #expect(log.all == [.moonshine(), .pocketsphinx(), .automatic, .moonshine()])
  }

  @Test func anEngineTheServerDoesNotRunIsABadRequestNamingIt() async throws {
    let server = server(engines: [.pocketsphinx])
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go forward", [("model", "moonshine")])
      ) { response in
        #expect(response.status == .badRequest)
        let body = String(buffer: response.body)
        #expect(body.contains(#""param":"model""#))
        #expect(body.contains("moonshine"))
        #expect(body.contains("GET /v1/models"))
      }
    }
  }

  @Test func anEngineThatTurnsOutNotInstalledIsABadRequestNamingIt() async throws {
    var configuration = ServerConfiguration(port: 0)
    configuration.engines = [.moonshine]
    let server = TranscriptionServer(configuration: configuration) {
      SpeechClient(
        requestAuthorization: {
          SpeechClient.Authorization(
            status: .restricted,
            reason: .engineUnavailable(engine: "Moonshine", reason: "no ONNX Runtime"))
        },
        startTask: { _ in AsyncThrowingStream { $0.finish() } },
        finishTask: {},
        captureDevices: { [] })
    }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post, headers: multipart,
        body: MultipartBody.upload("AUDIO go forward", [("model", "moonshine")])
      ) { response in
        #expect(response.status == .badRequest)
        #expect(String(buffer: response.body).contains("moonshine"))
      }
    }
  }
}
