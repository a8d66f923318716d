import Foundation
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Testing

@testable import TranscribeServer

/// `stream=true`: each utterance a `transcript.text.delta` once it is final, then
/// `transcript.text.done`, as server-sent events.
@Suite struct OpenAITranscriptStreamTests {
  static func word(_ text: String, at time: Double, ends: Bool = false) -> TranscriptionSegment {
    TranscriptionSegment(
      substring: text, timestamp: time, duration: 0.4, confidence: 1, endsUtterance: ends)
  }

  static func result(
    _ segments: [TranscriptionSegment], isFinal: Bool = false
  )
    -> SpeechRecognitionResult
  {
    SpeechRecognitionResult(
      bestTranscription: Transcription(segments: segments), isFinal: isFinal)
  }

  @Test func eachFinishedUtteranceIsSentOnceAndTheirJoinIsTheDoneText() {
    let first = [Self.word("go", at: 0), Self.word("forward", at: 0.5, ends: true)]
    let second = [Self.word("ten", at: 2), Self.word("meters", at: 2.5, ends: true)]
    var stream = OpenAITranscriptStream()
    #expect(stream.events(for: nil) == [])
    // Words still being decided are not sent.
    #expect(stream.events(for: Self.result([Self.word("go", at: 0)])) == [])
    #expect(stream.events(for: Self.result(first)) == [.delta("go forward")])
    #expect(stream.events(for: Self.result(first + [Self.word("ten", at: 2)])) == [])
    #expect(stream.events(for: Self.result(first + second)) == [.delta(" ten meters")])
    #expect(stream.events(for: Self.result(first + second)) == [])
    // The input ended mid-utterance: its words come before the done event.
    let final = Self.result(first + second + [Self.word("left", at: 4)], isFinal: true)
    #expect(
      stream.finish(with: OpenAITranscription(final)) == [
        .delta(" left"), .done(text: "go forward ten meters left", words: 5),
      ])
  }

  @Test func utterancesWithoutWordsSendNothing() {
    var builder = TranscriptionBuilder()
    builder.appendUtterance([])
    builder.appendUtterance([Self.word("hello", at: 1)])
    var stream = OpenAITranscriptStream()
    let result = SpeechRecognitionResult(bestTranscription: builder.transcription, isFinal: true)
    #expect(stream.events(for: result) == [.delta("hello")])
    #expect(
      stream.finish(with: OpenAITranscription(result)) == [.done(text: "hello", words: 1)])
  }

  @Test func eventsGoOnTheWireAsOpenAISendsThem() {
    #expect(
      String(buffer: OpenAITranscriptStream.Event.delta(" ten meters").serverSentEvent)
        == "data: {\"delta\":\" ten meters\",\"type\":\"transcript.text.delta\"}\n\n")
    #expect(
      String(buffer: OpenAITranscriptStream.Event.done(text: "go", words: 1).serverSentEvent)
        == "data: {\"text\":\"go\",\"type\":\"transcript.text.done\",\"usage\":"
        + "{\"input_tokens\":0,\"output_tokens\":1,\"total_tokens\":1,\"type\":\"tokens\"}}\n\n")
    let error = String(
      buffer: OpenAITranscriptStream.Event.error(.recognitionFailed("the decoder broke"))
        .serverSentEvent)
    #expect(error.hasPrefix("data: {\"error\":{"))
    #expect(error.contains("the decoder broke"))
    #expect(error.hasSuffix("}}\n\n"))
  }

  @Test func withLogprobsEachDeltaHasItsTokensAndTheDoneEventAll() {
    var tokenized = Self.word("Go", at: 0, ends: true)
    tokenized.tokens = [
      .init(bytes: Array(" G".utf8), logprob: -0.5), .init(bytes: [111], logprob: 0),
    ]
    var sure = Self.word("on", at: 1, ends: true)
    sure.confidence = 0.5
    var stream = OpenAITranscriptStream(includesLogprobs: true)
    let first = OpenAITranscription.Logprob(token: " G", bytes: Array(" G".utf8), logprob: -0.5)
    let second = OpenAITranscription.Logprob(token: "o", bytes: [111], logprob: 0)
    // A word without tokens (pocketsphinx) is its own token, with the log of its confidence.
    let third = OpenAITranscription.Logprob(token: "on", bytes: Array("on".utf8), logprob: log(0.5))
    #expect(
      stream.events(for: Self.result([tokenized])) == [.delta("Go", logprobs: [first, second])])
    #expect(
      stream.events(for: Self.result([tokenized, sure])) == [.delta(" on", logprobs: [third])])
    #expect(
      stream.finish(with: OpenAITranscription(Self.result([tokenized, sure], isFinal: true)))
        == [.done(text: "Go on", words: 2, logprobs: [first, second, third])])
    #expect(
      String(buffer: OpenAITranscriptStream.Event.delta(" on", logprobs: [third]).serverSentEvent)
        .hasPrefix(
          "data: {\"delta\":\" on\",\"logprobs\":[{\"bytes\":[111,110],\"logprob\":-0.69"))
  }

  @Test func withTimestampsEachDeltaCarriesItsSpanAndWords() {
    let first = [Self.word("go", at: 0.25), Self.word("forward", at: 0.5, ends: true)]
    let second = [Self.word("left", at: 2)]
    var stream = OpenAITranscriptStream(timestamps: [.word, .segment])
    let go = OpenAITranscription.Word(Self.word("go", at: 0.25))
    let forward = OpenAITranscription.Word(Self.word("forward", at: 0.5))
    #expect(
      stream.events(for: Self.result(first)) == [
        .delta("go forward", times: .init(start: 0.25, end: 0.9, words: [go, forward]))
      ])
    // The last utterance, finished by the end of the input, has its times too.
    var words = OpenAITranscriptStream(timestamps: [.word])
    _ = words.events(for: Self.result(first))
    #expect(
      words.finish(with: OpenAITranscription(Self.result(first + second, isFinal: true)))
        == [
          .delta(" left", times: .init(words: [.init(Self.word("left", at: 2))])),
          .done(text: "go forward left", words: 3),
        ])
    #expect(
      String(
        buffer: OpenAITranscriptStream.Event.delta(
          "go", times: .init(start: 0.25, end: 0.65, words: [go])
        ).serverSentEvent)
        == "data: {\"delta\":\"go\",\"end\":0.65,\"start\":0.25,\"type\":\"transcript.text.delta\","
        + "\"words\":[{\"end\":0.65,\"start\":0.25,\"word\":\"go\"}]}\n\n")
  }

  @Test func anUploadAskingForWordTimesGetsThemInEachDelta() async throws {
    let scripted = ScriptedSpeechClient()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessions: 1)
    ) { scripted.client }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType],
        body: MultipartBody.upload(
          "AUDIO go forward | ten meters",
          [("stream", "true"), ("timestamp_granularities[]", "word")])
      ) { response in
        #expect(response.status == .ok)
        let deltas = String(buffer: response.body).components(separatedBy: "\n\n")
          .filter { $0.contains("transcript.text.delta") }
          .map { Data($0.dropFirst("data: ".count).utf8) }
          .map { try? JSONDecoder().decode(OpenAITranscriptStream.Delta.self, from: $0) }
        #expect(deltas.map { $0?.words?.map(\.word) } == [["go", "forward"], ["ten", "meters"]])
        let times = deltas.compactMap { $0?.words }.joined().map(\.start)
        #expect(times == times.sorted(), "the words' times run forward: \(times)")
      }
    }
  }

  @Test(arguments: ["json", "text"])
  func anUploadWithStreamTrueIsAnsweredWithEvents(format: String) async throws {
    let scripted = ScriptedSpeechClient()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessions: 1)
    ) { scripted.client }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType],
        body: MultipartBody.upload(
          "AUDIO go forward | ten meters", [("stream", "true"), ("response_format", format)])
      ) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/event-stream")
        #expect(response.headers[.cacheControl] == "no-cache")
        #expect(
          String(buffer: response.body)
            == "data: {\"delta\":\"go forward\",\"type\":\"transcript.text.delta\"}\n\n"
            + "data: {\"delta\":\" ten meters\",\"type\":\"transcript.text.delta\"}\n\n"
            + "data: {\"text\":\"go forward ten meters\",\"type\":\"transcript.text.done\","
            + "\"usage\":{\"input_tokens\":0,\"output_tokens\":4,\"total_tokens\":4,"
            + "\"type\":\"tokens\"}}\n\n")
      }
    }
    #expect(server.sessions.activeCount == 0)
  }

  @Test func aFailureAfterTheStreamBeganIsItsLastEvent() async throws {
    let failing = SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { _ in
        AsyncThrowingStream { continuation in
          continuation.yield(Self.result([Self.word("hello", at: 0, ends: true)]))
          continuation.finish(throwing: SpeechClient.Failure.decoderFailure("it broke"))
        }
      },
      finishTask: {}, captureDevices: { [] })
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessions: 1)
    ) { failing }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(
        uri: "/v1/audio/transcriptions", method: .post,
        headers: [.contentType: MultipartBody.contentType],
        body: MultipartBody.upload("AUDIO hello", [("stream", "true")])
      ) { response in
        #expect(response.status == .ok)
        let events = String(buffer: response.body).components(separatedBy: "\n\n")
        #expect(events.count == 3, "\(events)")
        #expect(events.first == "data: {\"delta\":\"hello\",\"type\":\"transcript.text.delta\"}")
        #expect(events.dropFirst().first?.hasPrefix("data: {\"error\":{") == true)
        #expect(events.dropFirst().first?.contains("\"type\":\"server_error\"") == true)
        #expect(events.last == "")
      }
    }
    #expect(server.sessions.activeCount == 0)
  }

  @Test func theFirstDeltaComesWhileDecodingGoesOnAndAClientThatLeavesStopsIt() async throws {
    let decoder = FirstWordsThenEndless(words: "go forward")
    let recorder = LogRecorder()
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, maxSessions: 1),
      logger: recorder.logger(level: .info)
    ) { decoder.client }
    try await server.makeApplication().test(.live) { client in
      let connection = try RawConnection(port: try #require(client.port))
      var body = MultipartBody()
      body.field("stream", "true")
      body.file(Array("AUDIO a long talk".utf8))
      connection.send(UploadLifetimeTests.request(body.buffer))
      #expect(await decoder.started.wait(seconds: 10))
      let received = connection.receive(seconds: 2)
      #expect(received.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(received)")
      #expect(received.lowercased().contains("content-type: text/event-stream\r\n"), "\(received)")
      #expect(
        received.contains("data: {\"delta\":\"go forward\",\"type\":\"transcript.text.delta\"}"),
        "\(received)")
      #expect(!received.contains("transcript.text.done"))
      #expect(server.sessions.activeCount == 1)
      connection.close()
      #expect(await decoder.stopped.wait(seconds: 5))
      #expect(await recorder.wait(seconds: 5) { $0.message == "session ended" })
      #expect(server.sessions.activeCount == 0)
    }
    let ended = try #require(recorder.lines.first { $0.message == "session ended" })
    #expect(ended.metadata["outcome"] == "client_closed")
  }
}

/// A speech client that hears `words` as one finished utterance at once, then decodes forever;
/// it says when a task started and when its stream was stopped.
final class FirstWordsThenEndless: Sendable {
  let words: String
  let started = Signal()
  let stopped = Signal()

  init(words: String) {
    self.words = words
  }

  var client: SpeechClient {
    SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { [started, stopped, words] _ in
        let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
          .makeStream()
        continuation.onTermination = { _ in stopped.fire() }
        continuation.yield(
          OpenAITranscriptStreamTests.result([
            OpenAITranscriptStreamTests.word(words, at: 0, ends: true)
          ]))
        started.fire()
        return stream
      },
      finishTask: {},
      captureDevices: { [] })
  }
}
