import Foundation
import Testing

@testable import Moonshine

/// Where the sound of speech ends (``SoundEnd``), on signals whose end is known.
struct SoundEndTests {
  let rate = 16_000

  /// `seconds` of a sine at `frequency` Hz and `decibels` dBFS (RMS).
  func tone(_ frequency: Double, _ decibels: Double, seconds: Double) -> [Float] {
    let amplitude = pow(10, decibels / 20) * 2.0.squareRoot()
    return (0..<Int(seconds * Double(rate))).map {
      Float(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate)))
    }
  }

  func silence(seconds: Double) -> [Float] {
    [Float](repeating: 0, count: Int(seconds * Double(rate)))
  }

  /// Seeded white noise at `decibels` dBFS (RMS).
  func noise(_ decibels: Double, count: Int) -> [Float] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let amplitude = Float(pow(10, decibels / 20) * 3.0.squareRoot())
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return amplitude * (Float(state >> 40) / Float(1 << 24) * 2 - 1)
    }
  }

  /// 0.3 s of silence, speech-like sound (a 300 Hz tone) up to 1.0 s, then what follows.
  func utterance(then tail: [Float]) -> [Float] {
    silence(seconds: 0.3) + tone(300, -20, seconds: 0.7) + tail
  }

  @Test func aLowThumpAfterTheWordsIsNotSpeech() {
    // A pop on the microphone: loud, all of it below 150 Hz, swelling and fading over 0.15 s
    // after the speech.
    let pop = tone(60, -22, seconds: 0.15)
    let swell = pop.indices.map { Float(sin(Double.pi * Double($0) / Double(pop.count))) }
    let samples = utterance(then: zip(pop, swell).map(*) + silence(seconds: 0.1))
    let end = SoundEnd.find(in: samples, speechStart: 4_800, detectorEnd: samples.count)
    // The speech ends at 1.0 s; the end is the last loud 10 ms frame's, plus 20 ms.
    #expect((16_000...16_800).contains(end), "\(Double(end) / 16_000) s")
  }

  @Test func soundUpToTheDetectorsEndKeepsIt() {
    let samples = utterance(then: tone(300, -20, seconds: 0.2))
    #expect(SoundEnd.find(in: samples, speechStart: 4_800, detectorEnd: samples.count) == 19_200)
  }

  @Test func theEndNeverMovesLaterThanTheDetectorsOrBeforeTheSpeech() {
    let samples = utterance(then: silence(seconds: 0.2))
    // A detector that let go in the middle of the sound: its end stands.
    #expect(SoundEnd.find(in: samples, speechStart: 4_800, detectorEnd: 12_000) == 12_000)
    // Speech said to start after the sound ended: the end is no earlier than the start.
    #expect(SoundEnd.find(in: samples, speechStart: 16_800, detectorEnd: 19_200) == 16_800)
  }

  @Test func inNoiseTheDetectorsEndStands() {
    // Room noise 25 dB under the speech: the end of the last word may sink into it.
    let clean = utterance(then: silence(seconds: 0.2))
    let samples = zip(clean, noise(-45, count: clean.count)).map { $0 + $1 }
    #expect(SoundEnd.find(in: samples, speechStart: 4_800, detectorEnd: samples.count) == 19_200)
  }

  @Test func soundThatEndedLongBeforeTheDetectorsEndLeavesItAlone() {
    // 0.4 s of silence before the detector let go: more than it lags by; its end stands.
    let samples = utterance(then: silence(seconds: 0.4))
    #expect(SoundEnd.find(in: samples, speechStart: 4_800, detectorEnd: samples.count) == 22_400)
  }

  @Test func aQuietRoomAfterTheSpeechIsNotSpeech() {
    // Room noise 45 dB under the speech (a quiet room): the speech's end is found.
    let clean = utterance(then: silence(seconds: 0.2))
    let samples = zip(clean, noise(-65, count: clean.count)).map { $0 + $1 }
    let end = SoundEnd.find(in: samples, speechStart: 4_800, detectorEnd: samples.count)
    #expect((16_000...16_800).contains(end), "\(Double(end) / 16_000) s")
  }
}
