import NIOCore
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
    .refused(.webSocketProtocolViolation("a data frame from the client was not masked")),
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

  /// The refusals of a request before any session, each with its status and code.
  static let refusals: [RequestRefusal] = [
    .headersTooSlow(.seconds(15)), .upgradeNotFirst, .urlTooLong(length: 9_000, limit: 8_192),
    .headersTooLarge, .invalidContentLength, .unsupportedHTTPVersion, .unreadable("invalid method"),
    .noSuchPath("/v1/nothing", routes: "GET /v1/models"),
    .methodNotAllowed(path: "/v1/models", allowed: "GET, HEAD", method: "POST"),
    .originNotAllowed("https://example.com"), .unauthorized,
    .webSocketProtocolViolation("a reserved bit (RSV1) was set"),
  ]

  @Test(arguments: refusals)
  func aRefusalIsOneLineOfTextOrOpenAIsJSONUnderV1(refusal: RequestRefusal) throws {
    #expect(SessionProblem.refused(refusal).text == refusal.sentence)
    #expect(SessionProblem.refused(refusal).sentence == refusal.sentence)
    #expect(!SessionProblem.refused(refusal).deliversLastWords)
    #expect(!refusal.sentence.contains("\n"))
    let text = Refusal(refusal, path: "/")
    #expect(text.status == refusal.status)
    #expect(text.contentType.hasPrefix("text/plain"))
    #expect(String(buffer: text.body) == refusal.sentence + "\n")
    #expect(Refusal(refusal).body == text.body)
    let json = Refusal(refusal, path: "/v1/audio/transcriptions")
    #expect(json.status == refusal.status)
    #expect(json.contentType == "application/json")
    let body = String(buffer: json.body)
    #expect(body.contains("\"code\":\"\(refusal.code)\""), "\(body)")
    #expect(json.headers.map(\.name) == refusal.headers.map(\.name))
  }

  @Test func refusalsThatNeedAHeaderCarryIt() {
    #expect(RequestRefusal.unauthorized.status == .unauthorized)
    #expect(RequestRefusal.unauthorized.headers.first?.value == "Bearer")
    let method = RequestRefusal.methodNotAllowed(path: "/v1/models", allowed: "GET", method: "PUT")
    #expect(method.headers.first?.name == "Allow" && method.headers.first?.value == "GET")
    #expect(method.sentence == "/v1/models takes GET, not PUT.")
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
