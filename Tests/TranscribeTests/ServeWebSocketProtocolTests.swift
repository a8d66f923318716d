import Foundation
import LiveTestSupport
import Testing

/// Frames that break the WebSocket protocol, or a message fragmented past what the server reads,
/// sent by hand (`scripts/ws_frames.py`): each gets an `{"error"}` naming the problem where the
/// protocol still allows a message, then a close whose reason says it too, and the stream's log
/// line says it as well.
extension CommandTests {
  @Suite(.serialized) struct ServeWebSocketProtocolTests {
    static let violations: [(String, String)] = [
      ("continuation-first", "a continuation frame came with no message to continue"),
      ("new-message-inside", "a new message began inside a fragmented one"),
      ("fragmented-ping", "a ping, pong or close frame was fragmented"),
      ("long-ping", "a ping, pong or close frame carried more than 125 bytes"),
      ("rsv1", "a frame had RSV1 set"),
      ("opcode3", "a frame had the reserved opcode 3"),
      ("close-code-5", "a close frame had code 5"),
    ]

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 (scripts/install-dependencies.sh)"),
      arguments: violations)
    func aProtocolViolationIsClosedWith1002NamingIt(
      case name: String, violation: String
    )
      async throws
    {
      let server = try await ServeProcess(["--preview"])
      defer { server.kill() }
      let result = try await PythonClient.run("ws_frames.py", [server.webSocketURL, name])
      let answers = ServeWebSocketCommandTests.replies(result.stdout)
      let close = try #require(answers.last, "\(result.stdout) \(result.stderr)")
      #expect(close["close"] as? Int == 1002, "\(result.stdout)")
      #expect((close["reason"] as? String)?.contains(violation) == true, "\(result.stdout)")
      if name == "close-code-5" {
        // The client has closed: only the close answers it.
        #expect(answers.count == 1, "\(result.stdout)")
      } else {
        let error = try #require(answers.first?["text"] as? String, "\(result.stdout)")
        #expect(error.contains(violation), "\(error)")
      }
      let log = await server.stop()
      #expect(log.contains("outcome=bad_input"), "\(log)")
      #expect(log.contains(violation), "\(log)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 (scripts/install-dependencies.sh)"))
    func aMessageFragmentedPastWhatIsReadGetsTheLimitThen1009() async throws {
      let server = try await ServeProcess(["--preview"])
      defer { server.kill() }
      // 48 fragments of 64 KiB: 3 MiB in one message, over the 2 MiB the server reads at all.
      let result = try await PythonClient.run(
        "ws_frames.py", [server.webSocketURL, "fragments-over-limit"])
      let answers = ServeWebSocketCommandTests.replies(result.stdout)
      #expect(answers.count == 2, "\(result.stdout) \(result.stderr)")
      let error = try #require(answers.first?["text"] as? String, "\(result.stdout)")
      #expect(error.contains("over the limit of 1048576 bytes"), "\(error)")
      #expect(answers.last?["close"] as? Int == 1009, "\(result.stdout)")
      let log = await server.stop()
      #expect(log.contains("outcome=bad_input"), "\(log)")
      #expect(log.contains("over the limit of 1048576 bytes"), "\(log)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 (scripts/install-dependencies.sh)"))
    func aRealtimeMessageFragmentedPastWhatIsReadGetsARealtimeErrorThen1009() async throws {
      // Realtime's client reads `error` events, not vosk's {"error": …}.
      let server = try await ServeProcess(["--preview"])
      defer { server.kill() }
      let result = try await PythonClient.run(
        "ws_frames.py",
        [server.webSocketURL + "/v1/realtime?intent=transcription", "fragments-over-limit"])
      let answers = ServeWebSocketCommandTests.replies(result.stdout)
      let events = try answers.dropLast().map { answer in
        let text = try #require(answer["text"] as? String, "\(result.stdout)")
        return try #require(
          JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
      }
      #expect(events.first?["type"] as? String == "session.created", "\(result.stdout)")
      let error = try #require(events.last, "\(result.stdout)")
      #expect(error["type"] as? String == "error", "\(result.stdout)")
      let body = try #require(error["error"] as? [String: Any], "\(result.stdout)")
      #expect(body["type"] as? String == "invalid_request_error")
      #expect(body["code"] as? String == "message_too_large")
      #expect(
        (body["message"] as? String)?.contains("limit of 1048576 bytes") == true, "\(body)")
      #expect(answers.last?["close"] as? Int == 1009, "\(result.stdout)")
      let log = await server.stop()
      #expect(log.contains("outcome=bad_input"), "\(log)")
    }
  }
}
