import Foundation
import LiveTestSupport
import Moonshine
import Recognition
import Testing

@testable import PocketSphinx

/// pocketsphinx cutting utterances with Silero VAD instead of its own energy detector.
@Suite(
  .enabled(
    if: SileroVoiceActivityModel.isInstalled() && SpeechTestData.isInstalled,
    "needs Silero VAD (./scripts/install-dependencies.sh) and pocketsphinx-testdata"))
struct VoiceActivityDecoderTests {
  func decoder(alternatives: Int = 0) throws -> Decoder {
    var configuration = DecoderConfiguration()
    configuration.alternativeCount = alternatives
    configuration.voiceActivity = .silero(
      try SileroVoiceActivityModel.shared(file: nil, runtimeLibrary: nil))
    return try Decoder(configuration: configuration)
  }

  func silence(_ seconds: Double) -> [Int16] {
    [Int16](repeating: 0, count: Int(seconds * 16_000))
  }

  @Test func utterancesAndWordTimesCountFromTheStartOfTheStream() throws {
    let goForward = try samples(ofRaw: SpeechTestData.goForward)
    let gap = 2.0
    let audio = silence(3) + goForward + silence(gap) + goForward + silence(1)
    let events = try decode(audio, with: try decoder(alternatives: 3))
    let utterances = events.compactMap { event -> [RecognizedWord]? in
      if case let .utterance(words) = event, !words.isEmpty { words } else { nil }
    }
    #expect(
      utterances.map { $0.map(\.text) }
        == Array(repeating: ["go", "forward", "ten", "meters"], count: 2))
    guard utterances.count == 2 else { return }
    // The same words, heard 3 s (+ the clip and the gap) into the stream, at the same offsets.
    let reference = try decode(goForward, with: Decoder(configuration: DecoderConfiguration()))
    let alone =
      reference.compactMap { event -> [RecognizedWord]? in
        if case let .utterance(words) = event, !words.isEmpty { words } else { nil }
      }.first ?? []
    let second = 3 + Double(goForward.count) / 16_000 + gap
    for (offset, words) in zip([3.0, second], utterances) {
      for (word, single) in zip(words, alone) {
        #expect(abs(word.timestamp - (single.timestamp + offset)) < 0.12, "\(word) vs \(single)")
      }
    }
  }

  @Test func aStreamsOwnPauseLastsUntilTheReset() throws {
    let goForward = try samples(ofRaw: SpeechTestData.goForward)
    let audio = silence(1) + goForward + silence(0.8) + goForward + silence(2)
    let decoder = try decoder()
    func utterances(tuned: Bool = false) throws -> Int {
      try decoder.reset()
      if tuned { decoder.tuneVoiceActivity(threshold: 0.6, endOfUtteranceSilence: 3) }
      return try decode(audio, with: decoder).filter {
        if case .utterance(let words) = $0 { !words.isEmpty } else { false }
      }.count
    }
    // 0.8 s is a pause with the default 0.5 s; not with a stream's own 3 s (goforward ends in
    // 0.8 s of quiet too), until the reset.
    #expect(try utterances() == 2)
    #expect(try utterances(tuned: true) == 1)
    #expect(try utterances() == 2)
  }

  @Test func steadyNoiseAloneGivesNoWords() throws {
    let directory = try TemporaryDirectory()
    _ = try NoisySpeech.room(in: directory.url, snr: 5)
    let noise = try NoisySpeech.samples(
      of: directory.url.appendingPathComponent("room-pinknoise.wav"))
    let events = try decode(Array(noise.prefix(10 * 16_000)), with: try decoder())
    #expect(utteranceWords(events).isEmpty)
  }

  @Test func aNoisyRoomLosesFewerWordsThanWithPocketsphinxsOwnDetector() throws {
    let directory = try TemporaryDirectory()
    let room = try NoisySpeech.room(in: directory.url, snr: 10)
    let audio = try NoisySpeech.samples(of: room.url)
    let reference = room.references.joined(separator: " ").split(separator: " ").map(String.init)
    func errors(_ decoder: Decoder) throws -> Int {
      editDistance(utteranceWords(try decode(audio, with: decoder)), reference)
    }
    let silero = try errors(try decoder())
    var own = DecoderConfiguration()
    own.alternativeCount = 0
    let energy = try errors(try Decoder(configuration: own))
    #expect(silero < energy, "errors with Silero VAD \(silero), with pocketsphinx's own \(energy)")
  }
}
