import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import Moonshine

/// What partial results cost: looks spaced by their cost, in audio and wall-clock time, and none
/// for audio that is already waiting.
@Suite(.serialized, .enabled(if: isModelInstalled, modelRequirement))
struct PartialResultsPaceTests {
  /// Feeds `samples` in chunks of 0.2 s (as vosk's client sends them), moving `clock` on by each
  /// chunk's audio when `asSpoken`, and returns every event.
  func feed(
    _ samples: [Int16], to recognizer: MoonshineRecognizer, clock: StoppedClock, asSpoken: Bool,
    catchingUp: Bool = false
  ) throws -> [RecognitionEvent] {
    recognizer.now = clock.now
    var events: [RecognitionEvent] = []
    let chunk = 3_200
    for start in stride(from: 0, to: samples.count, by: chunk) {
      let end = min(start + chunk, samples.count)
      if asSpoken { clock.advance(bySamples: end - start) }
      // Every chunk but the last has more audio waiting after it.
      recognizer.isCatchingUp = catchingUp && end < samples.count
      events += try samples[start..<end].withUnsafeBufferPointer { try recognizer.process($0) }
    }
    if let words = try recognizer.finish(), !words.isEmpty { events.append(.utterance(words)) }
    return events
  }

  func partialCount(_ events: [RecognitionEvent]) -> Int {
    events.filter { if case .partial = $0 { true } else { false } }.count
  }

  func recognizer(_ partials: PartialResults) throws -> MoonshineRecognizer {
    var configuration = installedConfiguration
    configuration.partialResults = partials
    return try MoonshineRecognizer(
      configuration: configuration, speakingStreams: SpeakingStreams(), cores: 2)
  }

  /// The longest LibriVox clip (about 9 s of reading) with a second of silence after it.
  func longSentence() throws -> [Int16] {
    let clip = try #require(libriVoxClips().max { $0.samples.count < $1.samples.count })
    return clip.samples + [Int16](repeating: 0, count: 16_000)
  }

  @Test func audioSentFasterThanSpokenGetsNoMoreLooksThanTheWallClockAllows() throws {
    let audio = try longSentence()
    func modelled() throws -> MoonshineRecognizer {
      let made = try self.recognizer(.balanced)
      made.decodeCost = modelledDecodeCost
      return made
    }
    let spoken = try feed(audio, to: modelled(), clock: StoppedClock(), asSpoken: true)
    // All of it arrives at one instant: after the first look, no wall-clock time passes for the
    // next one; the final words are the same.
    let atOnce = try feed(audio, to: modelled(), clock: StoppedClock(), asSpoken: false)
    // Each utterance's first look, and the transcriptions early in its pauses (which the final
    // words reuse), but no more looks while it is spoken.
    let utterances = atOnce.count - partialCount(atOnce)
    #expect(partialCount(spoken) > 2 * utterances)
    #expect(
      partialCount(atOnce) * 2 <= partialCount(spoken),
      "\(partialCount(atOnce)) partial results at once, \(partialCount(spoken)) as spoken")
    #expect(finalText(atOnce) == finalText(spoken))
    #expect(!finalText(atOnce).isEmpty)
  }

  @Test func audioAlreadyWaitingIsNotLookedAt() throws {
    let audio = try longSentence()
    let catchingUp = try feed(
      audio, to: recognizer(.fast), clock: StoppedClock(), asSpoken: true, catchingUp: true)
    let spoken = try feed(audio, to: recognizer(.fast), clock: StoppedClock(), asSpoken: true)
    #expect(partialCount(catchingUp) == 0)
    #expect(partialCount(spoken) > 0)
    #expect(finalText(catchingUp) == finalText(spoken))
  }

  @Test func balancedLooksLessOftenThanFastForTheSameWords() throws {
    let audio = try longSentence()
    let fast = try feed(audio, to: recognizer(.fast), clock: StoppedClock(), asSpoken: true)
    let balanced = try feed(
      audio, to: recognizer(.balanced), clock: StoppedClock(), asSpoken: true)
    #expect(partialCount(balanced) > 0)
    #expect(
      partialCount(fast) > partialCount(balanced),
      "fast \(partialCount(fast)), balanced \(partialCount(balanced))")
    #expect(finalText(fast) == finalText(balanced))
  }

  @Test func offGivesTheFinalWordsOnly() throws {
    let audio = try longSentence()
    let off = try feed(audio, to: recognizer(.off), clock: StoppedClock(), asSpoken: true)
    let balanced = try feed(
      audio, to: recognizer(.balanced), clock: StoppedClock(), asSpoken: true)
    #expect(partialCount(off) == 0)
    #expect(off.count == 1)
    #expect(finalText(off) == finalText(balanced))
  }

  @Test func theWaitBetweenLooksIsTheirCostTimesTheSettingsFactor() throws {
    // Before anything was transcribed the cost is unknown: the least interval.
    let fast = try recognizer(.fast)
    let balanced = try recognizer(.balanced)
    #expect(fast.lookInterval(samples: 16_000) == MoonshineRecognizer.partialInterval)
    // After a look, the wait follows its cost, in proportion to the audio.
    let audio = try longSentence()
    _ = try feed(audio, to: fast, clock: StoppedClock(), asSpoken: true)
    _ = try feed(audio, to: balanced, clock: StoppedClock(), asSpoken: true)
    let fastWait = fast.lookInterval(samples: 16_000 * 20)
    let balancedWait = balanced.lookInterval(samples: 16_000 * 20)
    #expect(fastWait > MoonshineRecognizer.partialInterval)
    // Both from transcription times measured on this machine: balanced waits several looks'
    // time (4), fast one.
    #expect(balancedWait > fastWait, "fast \(fastWait) s, balanced \(balancedWait) s")
    #expect(balanced.lookInterval(samples: 0) == MoonshineRecognizer.partialInterval)
    #expect(try recognizer(.off).lookInterval(samples: 16_000) == .infinity)
  }
}
