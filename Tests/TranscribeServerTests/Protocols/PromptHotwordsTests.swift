import Architecture
import Foundation
import SpeechClient
import Testing

@testable import TranscribeServer

/// OpenAI's `prompt`, Realtime's `prompt` and Wyoming's `transcribe` names as hotwords.
struct PromptHotwordsTests {
  static let prompt = "Turn on the Kallax lamp in Siobhan's room."

  @Test func anUploadsPromptGivesItsNames() throws {
    let options = try OpenAITranscriptionOptions(fields: ["prompt": [Self.prompt]])
    #expect(options.hotwords == Hotwords(["Turn", "Kallax", "Siobhan"]))
    #expect(try OpenAITranscriptionOptions(fields: [:]).hotwords == Hotwords())
  }

  @Test func aPromptWithTooManyNamesIs400() throws {
    let names = (0...Hotwords.maximumCount).map { "Name\($0)" }.joined(separator: ", ")
    #expect(throws: OpenAIError.self) {
      try OpenAITranscriptionOptions(fields: ["prompt": [names]])
    }
    do {
      _ = try OpenAITranscriptionOptions(fields: ["prompt": [names]])
    } catch {
      #expect(error.status == .badRequest)
      #expect(error.message.contains("at most 1000 names"))
    }
  }

  @Test func aRealtimePromptGivesItsNames() throws {
    let update = try JSONDecoder().decode(
      RealtimeJSON.self,
      from: Data(
        #"{"type": "transcription", "audio": {"input": {"transcription": {"prompt": "Call Aoife Ni Bhriain."}}}}"#
          .utf8))
    let configuration = try RealtimeConfiguration().updated(with: update, engines: [.moonshine])
    #expect(configuration.hotwords == Hotwords(["Call", "Aoife Ni Bhriain"]))
    #expect(RealtimeConfiguration().hotwords == Hotwords())
  }

  @Test func wyomingNamesTermsAndContextAreHotwords() {
    let data: [String: JSONValue] = [
      "language": .string("en"),
      "transcript_names": .array([.string("Kallax"), .string(" Siobhan ")]),
      "transcript_terms": .array([.string("Nanoleaf"), .number(3)]),
      "context": .object([
        "areas": .array([.string("Kitchen"), .string("kallax")]),
        "entities": .object(["lights": .array([.string("Velux skylight")])]),
        "note": .string("Ask Saoirse first."),
        "count": .number(2),
      ]),
    ]
    #expect(
      WyomingHotwords.hotwords(in: data)
        == Hotwords([
          "Kallax", "Siobhan", "Nanoleaf", "Kitchen", "Velux skylight", "Ask", "Saoirse",
        ]))
    #expect(WyomingHotwords.hotwords(in: ["language": .string("en")]) == Hotwords())
  }

  @MainActor @Test func aWyomingUtteranceFavoursTheNamesOfItsTranscribe() async {
    let session = WyomingSessionTests()
    let store = session.makeStore()
    store.exhaustivity = .off
    await store.send(.stream(.start))
    await store.send(
      .received(
        WyomingEvent("transcribe", data: ["transcript_names": .array([.string("Kallax")])])))
    await store.send(.received(WyomingSessionTests.audioStart))
    #expect(store.state.recognition?.request.hotwords == Hotwords(["Kallax"]))
    await store.skipInFlightEffects(strict: false)
  }

  @MainActor @Test func aWyomingTranscribeWithTooManyNamesIsAnError() async {
    let session = WyomingSessionTests()
    let store = session.makeStore()
    store.exhaustivity = .off
    await store.send(.stream(.start))
    let names = (0...Hotwords.maximumCount).map { JSONValue.string("Name\($0)") }
    await store.send(
      .received(WyomingEvent("transcribe", data: ["transcript_names": .array(names)])))
    let problem = WyomingProblem.badHotwords(
      .tooMany(Hotwords.maximumCount + 1, limit: Hotwords.maximumCount))
    #expect(store.state.stream.outbox.contains(.event(problem.event)))
    #expect(problem.code == "too-many-hotwords")
    #expect(problem.text.contains("holds 1001 phrases; at most 1000 are allowed"))
    await store.skipInFlightEffects(strict: false)
  }
}
