import Hummingbird
import HummingbirdTesting
import Testing

@testable import TranscribeServer

/// HEAD for every GET route, 405 with `Allow` for a wrong method, OpenAI's 404 under `/v1/`.
@Suite struct MethodTests {
  static var server: TranscriptionServer {
    TranscriptionServer(configuration: ServerConfiguration(port: 0)) { .lorem() }
  }

  @Test(arguments: ["/healthz", "/readyz", "/metrics", "/", "/v1/models"])
  func headAnswersAsGetWithoutABody(path: String) async throws {
    // Prepared before it serves, so `/readyz` answers GET and HEAD alike (the application's
    // own preparation would race the two requests).
    let server = Self.server
    try await server.core.prepare()
    try await server.makeApplication().test(.router) { client in
      let get = try await client.execute(uri: path, method: .get)
      try await client.execute(uri: path, method: .head) { response in
        #expect(response.status == get.status)
        #expect(response.headers[.contentType] == get.headers[.contentType])
        #expect(response.body.readableBytes == 0)
      }
    }
  }

  @Test func aWrongMethodIs405WithAllow() async throws {
    try await Self.server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/healthz", method: .delete) { response in
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers[.allow] == "GET, HEAD")
      }
      try await client.execute(uri: "/v1/audio/transcriptions", method: .put) { response in
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers[.allow] == "POST")
        let error = try openAIError(response.body)
        #expect(error.code == "method_not_allowed")
      }
    }
  }

  @Test func anUnknownPathUnderV1IsOpenAIs404() async throws {
    try await Self.server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/v1/chat/completions", method: .post) { response in
        #expect(response.status == .notFound)
        let error = try openAIError(response.body)
        #expect(error.code == "unknown_url")
        #expect(error.message.contains("/v1/chat/completions"))
      }
      try await client.execute(uri: "/elsewhere", method: .get) { response in
        #expect(response.status == .notFound)
      }
    }
  }
}
