import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import TranscribeServer

/// Text a client sends can neither forge a log line nor flood one.
@Suite struct OneLineLogTests {
  @Test func controlCharactersAreEscapedAndLongValuesCut() {
    typealias Handler = OneLineLogHandler<SwiftLogNoOpLogHandler>
    #expect(
      Handler.escaped("json\n2099-01-01 critical forged") == #"json\n2099-01-01 critical forged"#)
    #expect(Handler.escaped("a\rb\tc\u{1B}[31md\u{2028}e") == #"a\rb\tc\u{1B}[31md\u{2028}e"#)
    #expect(Handler.escaped("plain words, ünïcödé") == "plain words, ünïcödé")
    let long = String(repeating: "x", count: 1_000_000)
    #expect(Handler.cut(long) == String(repeating: "x", count: 256) + "… (999744 more characters)")
  }

  @Test func aFormValueWithANewlineIsOneEscapedLogLine() async throws {
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0),
      logger: recorder.logger(level: .info, oneLine: true)
    ) { .lorem() }
    let forged = "json\n2099-01-01T00:00:00+0000 critical transcribe.serve: forged"
    try await server.makeApplication().test(.live) { client in
      var body = MultipartBody()
      body.field("response_format", forged + String(repeating: "!", count: 2_000))
      body.file(Array("AUDIO go".utf8))
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType], body: body.buffer
      ) { response in
        #expect(response.status == .badRequest)
        // The answer repeats only the start of the value.
        let message = try openAIError(response.body).message
        #expect(message.count < 400)
      }
    }
    #expect(!recorder.lines.isEmpty)
    for line in recorder.lines {
      #expect(!line.message.contains("\n"))
      for value in line.metadata.values {
        #expect(!value.contains("\n"))
        #expect(value.count < 400)
      }
    }
    let ended = try #require(recorder.lines.first { $0.message == "session ended" })
    #expect(ended.metadata["detail"]?.contains(#"json\n2099-01-01"#) == true)
  }
}
