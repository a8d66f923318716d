import Clocks
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// Bad input and limits on the WebSocket: each gets an `{"error": …}` message and its close
/// code, and the server goes on serving (the session's place is given back).
@Suite struct WebSocketLimitsTests {
  static func server(
    clock: (any Clock<Duration>)? = nil,
    _ configure: (inout ServerConfiguration) -> Void = { _ in }
  ) -> TranscriptionServer {
    var server = VoskWebSocketTests.server(configure)
    if let clock { server.clock = clock }
    return server
  }

  /// Runs `steps`, checks the error and close code, then checks that a good stream still works.
  static func expectRejected(
    _ steps: [VoskTestClient.Step], code: UInt16, containing text: String,
    server: TranscriptionServer = server(),
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await server.makeApplication().test(.live) { client in
      let transcript = try await VoskTestClient.run(client, steps)
      #expect(transcript.closeCode == code, sourceLocation: sourceLocation)
      let error = transcript.objects.last?["error"] as? String
      #expect(
        error?.contains(text) == true, "\(transcript.replies)", sourceLocation: sourceLocation)
      // A connection refused for a frame too large to read lingers until the client closes.
      let deadline = ContinuousClock.now + .seconds(3)
      while server.sessions.activeCount > 0, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(server.sessions.activeCount == 0, sourceLocation: sourceLocation)
      let next = try await VoskTestClient.run(
        client, VoskTestClient.silence(seconds: 0.4) + [VoskTestClient.eof])
      #expect(next.objects.last?["text"] as? String == "lorem", sourceLocation: sourceLocation)
    }
  }

  @Test func malformedConfigurationJSONIsClosedWith1007() async throws {
    try await Self.expectRejected(
      [.text(#"{"config": {"sample_rate": 16000"#, expectsReply: false)], code: 1007,
      containing: "JSON")
  }

  @Test func anUnknownConfigurationFieldIsClosedWith1007() async throws {
    try await Self.expectRejected(
      [VoskTestClient.config(#"{"sample_rate": 16000, "grammar": "cards"}"#)], code: 1007,
      containing: "grammar")
  }

  @Test func aLanguageTheServerDoesNotDecodeIsClosedWith1007() async throws {
    // This server runs no Whisper: English only.
    try await Self.expectRejected(
      [VoskTestClient.config(#"{"sample_rate": 16000, "language": "de"}"#)], code: 1007,
      containing: "must be en")
  }

  @Test func anInvalidSampleRateIsClosedWith1007() async throws {
    try await Self.expectRejected(
      [VoskTestClient.config(#"{"sample_rate": -5}"#)], code: 1007, containing: "sample_rate")
  }

  @Test func anOddLengthFrameIsClosedWith1007() async throws {
    try await Self.expectRejected(
      [.binary([0, 0, 0])], code: 1007, containing: "3 bytes")
  }

  @Test func aFrameOverTheLimitIsClosedWith1009() async throws {
    let server = Self.server { $0.maxFrameBytes = 7_000 }
    try await Self.expectRejected(
      [.binary([UInt8](repeating: 0, count: 7_002))], code: 1009, containing: "7002 bytes",
      server: server)
  }

  @Test func aFrameTooLargeToReadStillGetsItsErrorBefore1009() async throws {
    // Past twice the limit the protocol layer refuses the frame before the stream sees it.
    let server = Self.server { $0.maxFrameBytes = 7_000 }
    try await Self.expectRejected(
      [.binary([UInt8](repeating: 0, count: 15_000))], code: 1009,
      containing: "over the limit of 7000 bytes", server: server)
  }

  @Test func anUnsupportedTextMessageIsClosedWith1003() async throws {
    try await Self.expectRejected(
      [.text(#"{"reset" : 1}"#, expectsReply: false)], code: 1003, containing: "reset")
  }

  @Test func aConfigurationAfterAudioIsClosedWith1008() async throws {
    try await Self.expectRejected(
      VoskTestClient.silence(seconds: 0.2) + [VoskTestClient.config(#"{"words": true}"#)],
      code: 1008, containing: "first message")
  }

  @Test func anIdleStreamIsClosedWith1008() async throws {
    let clock = TestClock()
    let server = Self.server(clock: clock) { $0.idleTimeout = .seconds(30) }
    try await Self.expectRejected(
      VoskTestClient.silence(seconds: 0.2) + [.advanceUntilAnswered(clock, by: .seconds(30))],
      code: 1008, containing: "no audio for 30 s", server: server)
  }

  @Test func aStreamTricklingAFewBytesIsClosedAfterTheIdleTimeWith1008() async throws {
    let clock = TestClock()
    let server = Self.server(clock: clock) { $0.idleTimeout = .seconds(30) }
    // A 2-byte frame every 10 s: audio keeps coming, but never 0.1 s of it.
    let trickle: [VoskTestClient.Step] =
      (0..<3).flatMap { _ in
        [.binary([0, 0]), .perform { await clock.advance(by: .seconds(10)) }]
      } + [.advanceUntilAnswered(clock, by: .seconds(30))]
    try await Self.expectRejected(
      trickle, code: 1008, containing: "too little audio: 0.0001", server: server)
    #expect(
      server.metrics.exposition().contains(
        #"transcribe_ended_sessions_total{outcome="too_little_audio"} 1"#))
  }

  @Test func aRealTimeClientWithPausesShorterThanTheIdleTimeIsServed() async throws {
    let clock = TestClock()
    let server = Self.server(clock: clock) { $0.idleTimeout = .seconds(30) }
    try await server.makeApplication().test(.live) { client in
      let pause = VoskTestClient.Step.perform { await clock.advance(by: .seconds(29)) }
      let transcript = try await VoskTestClient.run(
        client,
        VoskTestClient.silence(seconds: 0.2) + [pause] + VoskTestClient.silence(seconds: 0.2)
          + [pause] + VoskTestClient.silence(seconds: 0.2) + [pause] + [VoskTestClient.eof])
      #expect(transcript.closeCode == 1000, "\(transcript.replies)")
      #expect(transcript.objects.last?["text"] as? String == "lorem ipsum")
    }
  }

  @Test func configurationsSentOverAndOverDoNotRenewTheIdleTime() async throws {
    let clock = TestClock()
    let server = Self.server(clock: clock) { $0.idleTimeout = .seconds(30) }
    // Whether the idle timeout elapses exactly 30 s after the start whatever the configurations
    // is VoskSessionTests' business; here the stream must end, idle, and not hang.
    let configurations: [VoskTestClient.Step] =
      (0..<3).flatMap { _ in
        [
          VoskTestClient.config(#"{"sample_rate": 16000}"#),
          .perform { await clock.advance(by: .seconds(10)) },
        ]
      } + [.advanceUntilAnswered(clock, by: .seconds(30))]
    try await Self.expectRejected(
      configurations, code: 1008, containing: "no audio for 30 s", server: server)
  }

  @Test func aStreamOverTheMaximumLengthGetsItsWordsThenIsClosedWith1008() async throws {
    let clock = TestClock()
    let server = Self.server(clock: clock) {
      $0.maxSessionDuration = .seconds(60)
      $0.idleTimeout = .seconds(120)
    }
    try await server.makeApplication().test(.live) { client in
      // 0.6 s of audio (two words), then the clock reaches the limit.
      let transcript = try await VoskTestClient.run(
        client,
        VoskTestClient.silence(seconds: 0.6) + [.advanceUntilAnswered(clock, by: .seconds(60))])
      #expect(transcript.closeCode == 1008)
      let objects = transcript.objects
      #expect(objects.dropLast().last?["text"] as? String == "lorem ipsum")
      #expect((objects.last?["error"] as? String)?.contains("maximum length of 60 s") == true)
      #expect(server.sessions.activeCount == 0)
    }
  }

  @Test func aStreamTurnedAwayThatSendsNothingStillGets1013() async throws {
    let server = Self.server { $0.maxSessions = 1 }
    let permit = try #require(server.sessions.acquire())
    defer { permit.release() }
    try await server.makeApplication().test(.live) { client in
      // The client only listens: the answer comes once the server stops waiting for a message.
      let transcript = try await VoskTestClient.run(client, [])
      #expect(transcript.closeCode == 1013)
      #expect((transcript.objects.last?["error"] as? String)?.contains("try again later") == true)
    }
  }

  @Test func pastMaxSessionsAStreamIsClosedWith1013() async throws {
    let server = Self.server { $0.maxSessions = 1 }
    try await server.makeApplication().test(.live) { client in
      let rejected = Mutex<VoskTestClient.Transcript?>(nil)
      let chunk = ByteBuffer(bytes: [UInt8](repeating: 0, count: 6_400))
      _ = try await client.ws("/") { inbound, outbound, _ in
        var replies = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        try await outbound.write(.binary(chunk))
        _ = try await replies.next()
        // The first stream holds the only place.
        let second = try await VoskTestClient.run(client, VoskTestClient.silence(seconds: 0.2))
        rejected.withLock { $0 = second }
        try await outbound.write(.text(#"{"eof" : 1}"#))
        _ = try await replies.next()
      }
      let second = try #require(rejected.withLock { $0 })
      #expect(second.closeCode == 1013)
      #expect((second.objects.last?["error"] as? String)?.contains("try again later") == true)
      // Once the first has ended, the place is free again.
      let third = try await VoskTestClient.run(
        client, VoskTestClient.silence(seconds: 0.4) + [VoskTestClient.eof])
      #expect(third.objects.last?["text"] as? String == "lorem")
    }
    #expect(
      server.metrics.exposition().contains(
        #"transcribe_rejected_sessions_total{reason="capacity"} 1"#))
  }
}
