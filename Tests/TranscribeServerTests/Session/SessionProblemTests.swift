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
    .webSocketProtocolViolation(.reservedBit("RSV1")),
    .webSocketRequired(path: "/v1/realtime", upgrade: "/v1/realtime?intent=transcription"),
  ]

  @Test(arguments: refusals)
  func aRefusalIsOneLineOfTextOrOpenAIsJSONUnderV1(refusal: RequestRefusal) throws {
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

  @Test func eachRefusalSaysWhatItAlwaysSaid() {
    let said: [(RequestRefusal, String)] = [
      (
        .headersTooSlow(.seconds(15)),
        "The request's headers did not arrive within 15.0 seconds; send the whole request at once."
      ),
      (
        .upgradeNotFirst,
        "A WebSocket upgrade must be the first request of its connection: open a new connection "
          + "for the stream."
      ),
      (
        .urlTooLong(length: 9_000, limit: 8_192),
        "The request's URL is 9000 bytes long; the server reads at most 8192. Send long values "
          + "in the body."
      ),
      (
        .headersTooLarge,
        "The request's headers are too large (at most 80 KiB in all, and 100 fields)."
      ),
      (.invalidContentLength, "The request's Content-Length is not a valid length for its body."),
      (
        .unsupportedHTTPVersion,
        "The server speaks HTTP/1.0 and HTTP/1.1 (and WebSocket through an upgrade)."
      ),
      (
        .unreadable("invalid method"),
        "The request is not HTTP/1.1 the server can read (invalid method)."
      ),
      (
        .noSuchPath("/v1/nothing", routes: "GET /v1/models"),
        "There is no /v1/nothing here: this server answers GET /v1/models."
      ),
      (
        .originNotAllowed("https://example.com"),
        "Requests from the web page at https://example.com are not allowed: open the page this "
          + "server serves, or start the server with --allow-origin https://example.com."
      ),
      (
        .unauthorized,
        "Missing or wrong token: send `Authorization: Bearer TOKEN` with the server's --token "
          + "(the API key of OpenAI's SDKs; a browser's WebSocket may use ?token=TOKEN)."
      ),
      (
        .webSocketProtocolViolation(.reservedBit("RSV1")),
        "WebSocket protocol error: a frame had RSV1 set, and no extension was agreed"
      ),
      (
        .webSocketRequired(path: "/v1/realtime", upgrade: "/v1/realtime?intent=transcription"),
        "/v1/realtime is a WebSocket endpoint: open a WebSocket to "
          + "/v1/realtime?intent=transcription (this server runs transcription sessions only)."
      ),
    ]
    for (refusal, sentence) in said {
      #expect(refusal.sentence == sentence)
    }
    #expect(OpenAIError.unauthorized.message == RequestRefusal.unauthorized.sentence)
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

  /// A client's mistake in one protocol is the catalogue's too (``ProtocolProblem``): the
  /// protocol says the catalogue's words with its own code, and the session reads `bad_input`
  /// without last words.
  @Test func aClientsMistakeIsTheCataloguesWordsWithTheProtocolsCode() {
    let vosk: [(ProtocolProblem.Vosk, UInt16)] = [
      (.invalidJSON, 1007), (.notAnObject, 1007), (.unknownConfigurationField("speed"), 1007),
      (.invalidConfigurationValue(field: "words", reason: .boolean), 1007),
      (.phraseNotInDictionary("zyx"), 1007), (.oddLengthFrame(bytes: 3), 1007),
      (.unsupportedMessage("{}"), 1003), (.configurationAfterAudio, 1008),
      (.unsupportedIntent("conversation"), 1008),
    ]
    for (mistake, closeCode) in vosk {
      let error = WebSocketSessionError.input(mistake)
      #expect(error.message == mistake.text)
      #expect(error.closeCode == closeCode, "\(mistake)")
      #expect(error.outcome == .badInput(mistake.text))
      #expect(!error.deliversLastWords)
    }
    let wyoming: [(ProtocolProblem.Wyoming, String)] = [
      (.headerTooLong(limit: 64), "header-too-long"),
      (.payloadTooLong(bytes: 9, limit: 8), "payload-too-long"),
      (.notJSON(part: "header line"), "bad-json"), (.missingType, "bad-event"),
      (.unsupportedLanguage("de"), "unsupported-language"),
      (.audioBeforeStart(event: "audio-chunk"), "audio-before-start"),
      (.rateChanged(rate: 8000, startedAt: 16000), "unsupported-audio"),
    ]
    for (mistake, code) in wyoming {
      let problem = WyomingProblem.input(mistake)
      #expect(problem.event.data["text"]?.stringValue == mistake.text)
      #expect(problem.code == code)
      #expect(problem.outcome == .badInput(mistake.text))
      #expect(!problem.deliversLastWords)
    }
    #expect(
      RealtimeError.oddLength(bytes: 3).message == ProtocolProblem.Realtime.oddLength(bytes: 3).text
    )
    #expect(RealtimeError.oddLength(bytes: 3).param == "audio")
    #expect(OpenAIError.missingField("file").message == "The `file` field is required.")
    #expect(
      RealtimeError.commitEmpty(milliseconds: 40).message
        == "Error committing input audio buffer: buffer too small. Expected at least 100ms of "
        + "audio, but buffer only has 40.00ms of audio.")
  }

  /// The sentences the parsers' problems say, as they said them before they were typed.
  @Test func eachMistakeSaysWhatItAlwaysSaid() {
    let wyoming: [(ProtocolProblem.Wyoming, String)] = [
      (.missingType, "bad event header: it has no \"type\" string; every event needs one"),
      (.dataNotObject, "bad event header: \"data\" must be a JSON object"),
      (
        .badLength(field: "data_length"),
        "bad event header: \"data_length\" must be a whole number of bytes, 0 or more"
      ),
      (
        .missingFormatField(
          event: "audio-start", field: .rate, range: 8000...48000),
        "unsupported audio: audio-start needs \"rate\" (a sample rate in Hz), a whole number "
          + "from 8000 to 48000"
      ),
      (
        .formatOutOfRange(
          event: "audio-start", field: .width, value: 5, range: 1...4),
        "unsupported audio: audio-start \"width\" 5 is not a sample width in bytes this server "
          + "reads (1 to 4); send 16-bit (width 2) PCM, e.g. 16000 Hz mono"
      ),
      (
        .partialFrames(bytes: 3, width: 2, channels: 1),
        "unsupported audio: an audio-chunk of 3 bytes does not hold whole frames of 2 bytes "
          + "(width 2 × 1 channel(s))"
      ),
      (
        .rateChanged(rate: 8000, startedAt: 16000),
        "unsupported audio: an audio-chunk at 8000 Hz in audio that started at 16000 Hz; send "
          + "a new audio-start to change the rate"
      ),
    ]
    #expect(
      ProtocolProblem.Wyoming.unexpectedEvent(event: "transcribe", expected: .streaming).text
        == "transcribe cannot come now; expected audio-chunk or audio-stop")
    #expect(
      ProtocolProblem.Vosk.invalidConfigurationValue(
        field: "phrase_list", reason: .phrases(.tooMany(3, limit: 2))
      ).text == "invalid configuration value for 'phrase_list': holds 3 phrases; at most 2 are "
        + "allowed")
    #expect(
      WebSocketViolation.controlFrameTooLong.text
        == "a ping, pong or close frame carried more than 125 bytes")
    for (mistake, sentence) in wyoming {
      #expect(mistake.text == sentence)
    }
    typealias Multipart = ProtocolProblem.Upload.Multipart
    #expect(
      Multipart.headersTooLong(kibibytes: 16).text == "a part's headers are longer than 16 KiB")
    #expect(Multipart.twoFileParts.text == "it has more than one `file` part")
    #expect(
      Multipart.syntax(delimiter: "--x").text
        == "it is not valid multipart/form-data: a boundary line (`--x`) or a part's header is "
        + "malformed")
    #expect(ProtocolProblem.Upload.Reason.emptyFile.text == "the file is empty")
  }

  /// A close frame's reason keeps as many whole characters of the text as fit in its bytes,
  /// for vosk's errors and for the transport's refusals alike.
  @Test func aCloseReasonIsTheTextCutAtAWholeCharacterWithinTheFrame() {
    let text = String(repeating: "é", count: 100)  // 200 bytes, 2 a character
    #expect(text.closeReason == String(repeating: "é", count: 61))
    #expect(text.closeReason.utf8.count <= ServerConfiguration.closeReasonBytes)
    #expect("short".closeReason == "short")
    let vosk = WebSocketSessionError.input(.unsupportedMessage(String(repeating: "x", count: 200)))
    #expect(vosk.closeReason.utf8.count == ServerConfiguration.closeReasonBytes)
    #expect(vosk.message.hasPrefix(vosk.closeReason))
    let frames = FrameRefusal.tooLargeToRead(limit: 1 << 20, readLimit: 2 << 20)
    #expect(frames.closeReason == frames.description.closeReason)
  }
}
