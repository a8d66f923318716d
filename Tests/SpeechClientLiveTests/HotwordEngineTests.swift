import Foundation
import Moonshine
import SpeechClient
import Testing

@testable import SpeechClientLive

/// How hotwords reach Moonshine's configuration, and why pools do not multiply with them.
struct HotwordEngineTests {
  static func moonshine(_ engine: LiveEngine) -> MoonshineConfiguration? {
    if case .moonshine(let configuration) = engine { return configuration }
    return nil
  }

  @Test func theClientsTheSourcesAndTheRequestsPhrasesMergeInThatOrder() throws {
    var configuration = LiveSpeechConfiguration()
    configuration.hotwords = Hotwords(["Kallax"], boost: 4)
    let source = HotwordSource()
    source.current = Hotwords(["Kitchen"])
    configuration.hotwordSource = source
    var request = SpeechRecognitionRequest(source: .pushed(PushedAudio()), engine: .moonshine())
    request.hotwords = Hotwords(["Siobhan", "kallax"])
    let engine = try #require(Self.moonshine(try configuration.engine(for: request)))
    #expect(engine.hotwords == ["Kallax", "Kitchen", "Siobhan"])
    #expect(engine.hotwordBoost == 4)
    request.hotwords.boost = 7
    #expect(Self.moonshine(try configuration.engine(for: request))?.hotwordBoost == 7)
  }

  @Test func aPoolIsKeyedByTheClientsOwnPhrasesAlone() throws {
    var configuration = LiveSpeechConfiguration()
    configuration.hotwords = Hotwords(["Kallax"])
    let source = HotwordSource()
    source.current = Hotwords(["Kitchen"])
    configuration.hotwordSource = source
    var request = SpeechRecognitionRequest(source: .pushed(PushedAudio()), engine: .moonshine())
    request.hotwords = Hotwords(["Siobhan"])
    let pooled = try configuration.pooledEngine(for: request)
    #expect(Self.moonshine(pooled)?.hotwords == ["Kallax"])
    // Another stream's list, and Home Assistant's names changing, share the same pool.
    source.current = Hotwords(["Hall"])
    request.hotwords = Hotwords(["Aoife"])
    #expect(try configuration.pooledEngine(for: request) == pooled)
    #expect(
      Self.moonshine(try configuration.engine(for: request))?.hotwords == [
        "Kallax", "Hall", "Aoife",
      ])
  }
}
