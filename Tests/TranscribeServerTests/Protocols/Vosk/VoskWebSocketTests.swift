import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import SpeechClient
import Testing

@testable import TranscribeServer

/// The vosk-protocol WebSocket, served with the lorem client: it hears one word per 0.3 s of
/// pushed audio and ends an utterance every eight words, so the replies are known exactly.
@Suite struct VoskWebSocketTests {
  static func server(
    _ configure: (inout ServerConfiguration) -> Void = { _ in }
  ) -> TranscriptionServer {
    var configuration = ServerConfiguration(port: 0)
    configure(&configuration)
    return TranscriptionServer(configuration: configuration) { .lorem() }
  }

  @Test func everyAudioMessageGetsOneReplyThatReflectsTheAudioSoFar() async throws {
    let server = Self.server()
    let transcript = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(
        client,
        [VoskTestClient.config(#"{"sample_rate": 16000}"#)]
          + VoskTestClient.silence(seconds: 3) + [VoskTestClient.eof])
    }
    // 15 chunks of 0.2 s and the end: 16 replies.
    #expect(transcript.replies.count == 16)
    let objects = transcript.objects
    #expect(objects[0]["partial"] as? String == "")
    #expect(objects[1]["partial"] as? String == "lorem")
    #expect(objects[2]["partial"] as? String == "lorem ipsum")
    // At 2.4 s the eighth word ends the utterance.
    #expect(
      objects[11]["text"] as? String == "lorem ipsum dolor sit amet consectetur adipiscing elit")
    #expect((objects[11]["result"] as? [[String: Any]])?.count == 8)
    #expect(objects[14]["partial"] as? String == "sed do")
    #expect(objects[15]["text"] as? String == "sed do")
    #expect(transcript.closeCode == 1000)
  }

  @Test func resultWordsCarryTimesAndConfidence() async throws {
    let server = Self.server()
    let transcript = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(
        client, VoskTestClient.silence(seconds: 0.6) + [VoskTestClient.eof])
    }
    let words = try #require(transcript.objects.last?["result"] as? [[String: Any]])
    #expect(words.map { $0["word"] as? String } == ["lorem", "ipsum"])
    #expect(words.map { $0["start"] as? Double } == [0, 0.3])
    #expect(words.map { $0["end"] as? Double } == [0.3, 0.6])
    #expect(words.map { $0["conf"] as? Double } == [1, 1])
  }

  @Test func wordsFalseLeavesTheWordListOut() async throws {
    let server = Self.server()
    let transcript = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(
        client,
        [VoskTestClient.config(#"{"words": false}"#)]
          + VoskTestClient.silence(seconds: 0.6) + [VoskTestClient.eof])
    }
    let last = try #require(transcript.objects.last)
    #expect(last["text"] as? String == "lorem ipsum")
    #expect(last["result"] == nil)
  }

  @Test func maxAlternativesAddsAlternatives() async throws {
    let server = Self.server()
    let transcript = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(
        client,
        [VoskTestClient.config(#"{"max_alternatives": 3}"#)]
          + VoskTestClient.silence(seconds: 0.6) + [VoskTestClient.eof])
    }
    let alternatives = try #require(
      transcript.objects.last?["alternatives"] as? [[String: Any]])
    #expect(alternatives.first?["text"] as? String == "lorem ipsum")
  }

  @Test func theSampleRateOfTheConfigurationTimesTheAudio() async throws {
    let server = Self.server()
    let transcript = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(
        client,
        [VoskTestClient.config(#"{"sample_rate": 8000}"#)]
          + VoskTestClient.silence(seconds: 0.6, rate: 8_000) + [VoskTestClient.eof])
    }
    #expect(transcript.objects.last?["text"] as? String == "lorem ipsum")
  }

  @Test func theEndAloneGetsAnEmptyResult() async throws {
    let server = Self.server()
    let transcript = try await server.makeApplication().test(.live) { client in
      try await VoskTestClient.run(client, [VoskTestClient.eof])
    }
    #expect(transcript.replies == [#"{"result":[],"text":""}"#])
    #expect(transcript.closeCode == 1000)
  }

  @Test func aPlainGetOfTheRootIsNotAnUpgrade() async throws {
    let server = Self.server()
    try await server.makeApplication().test(.live) { client in
      try await client.execute(uri: "/healthz", method: .get) { response in
        #expect(response.status == .ok)
      }
    }
  }
}
