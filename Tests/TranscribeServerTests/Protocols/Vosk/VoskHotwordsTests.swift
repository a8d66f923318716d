import Architecture
import Clocks
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature
import Testing

@testable import TranscribeServer

/// A vosk stream's `phrase_list`: hotwords when the server's default engine is Moonshine, a
/// grammar (pocketsphinx) otherwise.
@MainActor
struct VoskHotwordsTests {
  let results = AsyncThrowingStream<SpeechRecognitionResult, any Error>.makeStream()
  let clock = TestClock()

  func makeStore(engine: SpeechRecognitionRequest.EngineName) -> TestStoreOf<VoskSession> {
    var limits = ServerConfiguration()
    limits.engines = [engine]
    let (stream, _) = results
    return TestStore(initialState: VoskSession.State()) {
      VoskSession(limits: limits)
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in stream }
    }
  }

  static let config = #"{"config": {"phrase_list": ["Kallax", " Siobhan  Murphy ", "kallax"]}}"#

  /// Sends the configuration and one audio message; returns the request recognition started
  /// with.
  func request(engine: SpeechRecognitionRequest.EngineName) async -> SpeechRecognitionRequest? {
    let store = makeStore(engine: engine)
    store.exhaustivity = .off
    await store.send(.stream(.start))
    await store.send(.read(Self.config))
    await store.send(.audio(ByteBuffer(bytes: [UInt8](repeating: 0, count: 3_200))))
    await store.receive(\.recognition.recognitionStarted)
    let request = store.state.recognition?.request
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end)
    await store.skipReceivedActions()
    return request
  }

  @Test func withMoonshineAPhraseListBecomesHotwordsOnOpenSpeech() async {
    let request = await request(engine: .moonshine)
    #expect(request?.hotwords == Hotwords(["Kallax", "Siobhan Murphy"]))
    #expect(request?.engine == .automatic)
  }

  @Test func withPocketsphinxAPhraseListStillRestrictsTheStream() async {
    let request = await request(engine: .pocketsphinx)
    #expect(request?.hotwords == Hotwords())
    #expect(request?.model == .phrases(["Kallax", " Siobhan  Murphy ", "kallax"]))
  }

  @Test func aPhraseListOverTheHotwordLimitIsClosedWith1007() async {
    let store = makeStore(engine: .moonshine)
    await store.send(.stream(.start))
    let phrases = (0...Hotwords.maximumCount).map { "\"name\($0)\"" }.joined(separator: ",")
    let error = WebSocketSessionError.invalidConfigurationValue(
      field: "phrase_list",
      reason: .phrases(.tooMany(Hotwords.maximumCount + 1, limit: Hotwords.maximumCount)))
    await store.send(.read(#"{"config": {"phrase_list": ["# + phrases + "]}}")) {
      $0.stream.receivedMessages = 1
      $0.stream.outbox = [.reply(.error(error.message)), .close(error)]
      $0.stream.ending = .problem(error)
    }
    #expect(error.closeCode == 1007)
    // Within the limit it is taken.
    let within = makeStore(engine: .moonshine)
    await within.send(.stream(.start))
    let most = (1...Hotwords.maximumCount).map { "\"name\($0)\"" }.joined(separator: ",")
    await within.send(.read(#"{"config": {"phrase_list": ["# + most + "]}}")) {
      $0.stream.receivedMessages = 1
      $0.stream.allowedMessages = 2
      $0.configuration.phraseList = (1...Hotwords.maximumCount).map { "name\($0)" }
    }
    await within.skipInFlightEffects()
  }
}
