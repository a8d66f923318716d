import Testing

@testable import TranscribeServer

/// A problem every protocol shares is written once (``SessionProblem``): each protocol renders
/// the same words in its own shape, with its own code.
@Suite struct SessionProblemTests {
  static let problems: [SessionProblem] = [
    .busy, .tooManyConnections(limit: 3), .shuttingDown, .idle(.seconds(30)),
    .tooLittleAudio(received: .milliseconds(50), within: .seconds(30), renewal: .milliseconds(100)),
    .tooLong(.seconds(3600)), .recognitionFailed("the decoder failed"),
    .messageTooLarge(bytes: 2_000_000, limit: 1 << 20),
  ]

  @Test(arguments: problems)
  func everyProtocolSaysTheSameWords(problem: SessionProblem) {
    let vosk = WebSocketSessionError.session(problem)
    #expect(vosk.message == problem.text)
    #expect(vosk.outcome == problem.outcome)
    #expect(vosk.deliversLastWords == problem.deliversLastWords)
    let wyoming = WyomingProblem.session(problem)
    #expect(wyoming.text == problem.text)
    #expect(wyoming.event.data["text"]?.stringValue == problem.text)
    #expect(wyoming.outcome == problem.outcome)
    #expect(wyoming.deliversLastWords == problem.deliversLastWords)
    // Realtime writes some as sentences of its own (a capital, a period).
    let realtime = RealtimeError(closing: vosk).message.lowercased()
    #expect(realtime.hasPrefix(problem.text.lowercased()))
  }

  @Test func eachProtocolRendersAProblemWithItsOwnCode() {
    let problem = SessionProblem.shuttingDown
    #expect(WebSocketSessionError.session(problem).closeCode == 1001)
    #expect(WyomingProblem.session(problem).code == "shutting-down")
    #expect(RealtimeError(closing: .session(problem)).code == "server_shutting_down")
    #expect(OpenAIError(.shuttingDown, retryAfter: 1).code == "server_shutting_down")
  }

  @Test func theLimitsDeliverTheLastWordsAndTheFailuresDoNot() {
    #expect(SessionProblem.idle(.seconds(1)).deliversLastWords)
    #expect(SessionProblem.tooLong(.seconds(1)).deliversLastWords)
    #expect(SessionProblem.shuttingDown.deliversLastWords)
    #expect(!SessionProblem.busy.deliversLastWords)
    #expect(!SessionProblem.recognitionFailed("x").deliversLastWords)
  }
}
