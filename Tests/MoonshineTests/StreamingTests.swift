import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import Moonshine

@Suite(.enabled(if: isModelInstalled, modelRequirement))
struct StreamingTests {
  let expected = ["go", "forward", "ten", "meters"]

  /// goforward.raw with a second of silence after it, so the pause ends the utterance.
  func goForwardWithPause() throws -> [Int16] {
    try goForwardSamples() + [Int16](repeating: 0, count: 16_000)
  }

  @Test func partialResultsThenOneFinalUtterance() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    let events = try stream(goForwardWithPause(), to: recognizer, chunk: 800)
    let finals = events.filter { if case .utterance = $0 { true } else { false } }
    #expect(finals.count == 1)
    guard case let .utterance(words)? = events.last else {
      Issue.record("the last event is not the final utterance: \(events)")
      return
    }
    #expect(normalizedWords(words.map(\.text).joined(separator: " ")) == expected)
    #expect(words.allSatisfy { $0.confidence > 0 })
    let partials = events.dropLast().compactMap { event -> [RecognizedWord]? in
      if case let .partial(words) = event { words } else { nil }
    }
    #expect(!partials.isEmpty)
    for words in partials {
      #expect(!words.isEmpty && words.allSatisfy { $0.confidence == 0 })
    }
    // The speech starts a little after the start and ends before the audio does.
    let speechStart = words.first!.timestamp
    let speechEnd = words.last!.timestamp + words.last!.duration
    #expect(speechStart > 0.1 && speechStart < 1)
    let duration = Double(try goForwardSamples().count) / 16_000
    #expect(speechEnd > 2 && speechEnd <= duration)
  }

  @Test func aLongUtteranceDoesNotHoldBackTheNextOnesFirstPartial() throws {
    // The pace of partial results follows how long a transcription takes, in proportion to the
    // audio: the long clip's final transcription must not make the short command that follows
    // (and a recognizer reused for the next stream) wait for it.
    // Its own count of streams speaking: others of the process's must not set its pace.
    let recognizer = try MoonshineRecognizer(
      configuration: installedConfiguration, speakingStreams: SpeakingStreams(), cores: 2)
    recognizer.decodeCost = modelledDecodeCost
    let long = try #require(libriVoxClips().max { $0.samples.count < $1.samples.count })
    _ = try stream(long.samples + [Int16](repeating: 0, count: 16_000), to: recognizer, chunk: 800)
    try recognizer.reset()
    // The command arrives as it is spoken, on the wall clock the recognizer paces looks by.
    let clock = StoppedClock()
    recognizer.now = clock.now
    var fed = 0
    var firstPartial: Double?
    let samples = try goForwardWithPause()
    for start in stride(from: 0, to: samples.count, by: 800) where firstPartial == nil {
      let chunk = Array(samples[start..<min(start + 800, samples.count)])
      clock.advance(bySamples: chunk.count)
      let events = try chunk.withUnsafeBufferPointer { try recognizer.process($0) }
      fed += chunk.count
      if events.contains(where: { if case .partial = $0 { true } else { false } }) {
        firstPartial = Double(fed) / 16_000
      }
    }
    // "Go" is spoken from 0.46 s to 0.63 s (pocketsphinx's alignment); when the long clip's
    // final transcription set the pace, the first partial came 1.3 s in (a debug build).
    let first = try #require(firstPartial)
    #expect(first < 1.0, "the first partial came \(first) s into the command")
  }

  @Test func theWaitBetweenPartialsKeepsAtMostHalfTheCoresBusy() {
    // Each stream transcribes on one core: a lone stream on two cores may keep one busy; more
    // streams wait in proportion, so together they keep the same share busy (up to a factor 8).
    #expect(MoonshineRecognizer.paceFactor(speaking: 1, cores: 2) == 1)
    #expect(MoonshineRecognizer.paceFactor(speaking: 2, cores: 2) == 2)
    #expect(MoonshineRecognizer.paceFactor(speaking: 4, cores: 2) == 4)
    #expect(MoonshineRecognizer.paceFactor(speaking: 12, cores: 2) == 8)
    #expect(MoonshineRecognizer.paceFactor(speaking: 4, cores: 8) == 1)
    #expect(MoonshineRecognizer.paceFactor(speaking: 6, cores: 8) == 1.5)
    #expect(MoonshineRecognizer.paceFactor(speaking: 0, cores: 0) == 1)
  }

  @Test func aStreamCountsAsSpeakingOnlyWhileItsUtteranceGoesOn() throws {
    let speaking = SpeakingStreams()
    let recognizer = try MoonshineRecognizer(
      configuration: installedConfiguration, speakingStreams: speaking, cores: 2)
    var counts: [Int] = []
    var ended: Int?
    let samples = try goForwardWithPause()
    for start in stride(from: 0, to: samples.count, by: 800) {
      let chunk = Array(samples[start..<min(start + 800, samples.count)])
      let events = try chunk.withUnsafeBufferPointer { try recognizer.process($0) }
      counts.append(speaking.count)
      if ended == nil, events.contains(where: { if case .utterance = $0 { true } else { false } }) {
        ended = speaking.count
      }
    }
    #expect(counts.first == 0)
    #expect(counts.max() == 1)
    #expect(ended == 0)
    // An utterance cut short by the end of the stream stops counting too.
    try recognizer.reset()
    _ = try stream(goForwardSamples(), to: recognizer)
    #expect(speaking.count == 0)
  }

  @Test func aLoneStreamLooksMoreOftenThanOneAmongBusyCores() throws {
    func partials(othersSpeaking: Int) throws -> Int {
      let speaking = SpeakingStreams()
      let others = (0..<othersSpeaking).map { _ in speaking.token() }
      defer { withExtendedLifetime(others) {} }
      let recognizer = try MoonshineRecognizer(
        configuration: installedConfiguration, speakingStreams: speaking, cores: 2)
      recognizer.decodeCost = modelledDecodeCost
      // Audio arrives as it is spoken, on the wall clock the recognizer paces looks by.
      let clock = StoppedClock()
      recognizer.now = clock.now
      var events: [RecognitionEvent] = []
      let samples = try libriVoxClips()[0].samples
      for start in stride(from: 0, to: samples.count, by: 800) {
        let chunk = Array(samples[start..<min(start + 800, samples.count)])
        clock.advance(bySamples: chunk.count)
        events += try chunk.withUnsafeBufferPointer { try recognizer.process($0) }
      }
      return events.filter { if case .partial = $0 { true } else { false } }.count
    }
    let alone = try partials(othersSpeaking: 0)
    let amongThree = try partials(othersSpeaking: 3)
    #expect(alone > amongThree, "alone \(alone), among three others \(amongThree)")
  }

  @Test func chunkSizesDoNotChangeTheWords() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    for chunk in [1, 37, 2048, 16_000 * 5] {
      try recognizer.reset()
      let events = try stream(goForwardWithPause(), to: recognizer, chunk: chunk)
      #expect(normalizedWords(finalText(events)) == expected, "chunks of \(chunk)")
    }
  }

  @Test func finishEndsTheUtteranceInProgress() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    let samples = try goForwardSamples()
    var events: [RecognitionEvent] = []
    for start in stride(from: 0, to: samples.count, by: 800) {
      let chunk = Array(samples[start..<min(start + 800, samples.count)])
      events += try chunk.withUnsafeBufferPointer { try recognizer.process($0) }
    }
    #expect(!events.contains { if case .utterance = $0 { true } else { false } })
    let words = try #require(try recognizer.finish())
    #expect(normalizedWords(words.map(\.text).joined(separator: " ")) == expected)
    // Nothing is left to finish.
    #expect(try recognizer.finish() == nil)
  }

  @Test func resetRestartsTheTimes() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    let samples = try goForwardWithPause()
    let first = try stream(samples, to: recognizer)
    // Without a reset the second pass comes later in the stream…
    let continued = try stream(samples, to: recognizer)
    // …with one, at the same times again.
    try recognizer.reset()
    let restarted = try stream(samples, to: recognizer)
    func start(_ events: [RecognitionEvent]) -> TimeInterval? {
      for case let .utterance(words) in events { return words.first?.timestamp }
      return nil
    }
    let firstStart = try #require(start(first))
    let duration = Double(samples.count) / 16_000
    let continuedStart = try #require(start(continued))
    let restartedStart = try #require(start(restarted))
    #expect(abs(continuedStart - (firstStart + duration)) < 0.05)
    #expect(abs(restartedStart - firstStart) < 1e-9)
  }

  @Test func silenceAloneGivesNoEvents() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    #expect(try stream([Int16](repeating: 0, count: 16_000 * 3), to: recognizer) == [])
    var generator = SystemRandomNumberGenerator()
    let noise = (0..<(16_000 * 3)).map { _ in Int16.random(in: -40...40, using: &generator) }
    #expect(try stream(noise, to: recognizer) == [])
    // A click is not speech enough to be transcribed.
    var click = [Int16](repeating: 0, count: 16_000)
    for index in 8_000..<8_050 { click[index] = 20_000 }
    #expect(try stream(click, to: recognizer) == [])
  }

  @Test func withoutPartialResultsOnlyTheFinalComes() throws {
    var configuration = installedConfiguration
    configuration.reportsPartialResults = false
    let recognizer = try MoonshineRecognizer(configuration: configuration)
    let events = try stream(goForwardWithPause(), to: recognizer)
    #expect(events.count == 1)
    #expect(normalizedWords(finalText(events)) == expected)
  }

  @Test func aPauseSplitsUtterances() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    let clips = try libriVoxClips()
    let pause = [Int16](repeating: 0, count: 16_000)
    let events = try stream(clips[1].samples + pause + clips[4].samples + pause, to: recognizer)
    let finals = events.compactMap { event -> [RecognizedWord]? in
      if case let .utterance(words) = event { words } else { nil }
    }
    #expect(finals.count == 2)
    #expect(
      normalizedWords(finals.first?.map(\.text).joined(separator: " ") ?? "")
        == normalizedWords(clips[1].reference))
    // The second utterance's words come after the first clip and the pause.
    let secondStart = Double(clips[1].samples.count + pause.count) / 16_000
    #expect((finals.last?.first?.timestamp ?? 0) > secondStart)
  }

  @Test func aStreamsOwnPauseAndThresholdLastUntilTheReset() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    let goForward = try goForwardSamples()
    let gap = [Int16](repeating: 0, count: 12_800)  // 0.8 s
    let audio = goForward + gap + goForward + [Int16](repeating: 0, count: 32_000)
    func utterances() throws -> Int {
      try stream(audio, to: recognizer).filter {
        if case .utterance(let words) = $0 { !words.isEmpty } else { false }
      }.count
    }
    // 0.8 s is a pause with the default 0.5 s; not with a stream's own 3 s (goforward ends in
    // 0.8 s of quiet too).
    try recognizer.reset()
    #expect(try utterances() == 2)
    try recognizer.reset()
    recognizer.tuneVoiceActivity(threshold: 0.6, endOfUtteranceSilence: 3)
    #expect(try utterances() == 1)
    // The reset brings the configuration's settings back (a pool's next stream).
    try recognizer.reset()
    #expect(try utterances() == 2)
  }

  @Test func aLongUtteranceIsCutAtTheMaximumDuration() throws {
    var configuration = installedConfiguration
    configuration.maximumUtteranceDuration = 2
    configuration.reportsPartialResults = false
    let recognizer = try MoonshineRecognizer(configuration: configuration)
    let clip = try libriVoxClips()[0].samples  // 7 s of continuous reading
    let events = try stream(clip, to: recognizer)
    let finals = events.filter { if case .utterance = $0 { true } else { false } }
    #expect(finals.count >= 3)
  }
}
