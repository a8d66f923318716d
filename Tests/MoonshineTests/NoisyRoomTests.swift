import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import Moonshine

/// Moonshine in a room with a fan: the LibriVox sentences with pauses between them under steady
/// pink noise 10 dB below the speech, made with sox by the test.
@Suite(
  .enabled(
    if: isModelInstalled && isSileroInstalled && SpeechTestData.isInstalled, sileroRequirement))
struct NoisyRoomTests {
  /// The word error rate of `text` against `references` joined.
  func errorRate(_ text: String, _ references: [String]) -> Double {
    let reference = normalizedWords(references.joined(separator: " "))
    return Double(editDistance(normalizedWords(text), reference)) / Double(reference.count)
  }

  func configuration(
    _ detection: VoiceActivityDetection, partials: Bool = true
  ) -> MoonshineConfiguration {
    var configuration = installedConfiguration
    configuration.voiceActivity = detection
    configuration.reportsPartialResults = partials
    return configuration
  }

  @Test func aNoisyRoomStreamsWholeSentencesWithSilero() throws {
    let directory = try TemporaryDirectory()
    let room = try NoisySpeech.room(in: directory.url, snr: 10)
    let samples = try NoisySpeech.samples(of: room.url)
    let recognizer = try MoonshineRecognizer(configuration: configuration(try installedSilero()))
    let events = try stream(samples, to: recognizer, chunk: 800)
    let utterances = events.compactMap { event -> [RecognizedWord]? in
      if case let .utterance(words) = event { words } else { nil }
    }
    let rate = errorRate(finalText(events), room.references)
    #expect(rate <= 0.08, "WER \(rate): \(finalText(events))")
    // One utterance per sentence: none ends inside one.
    #expect(utterances.count == room.references.count, "\(utterances.map { $0.map(\.text) })")
    for (words, reference) in zip(utterances, room.references) {
      #expect(
        normalizedWords(words.map(\.text).joined(separator: " ")).last
          == normalizedWords(reference).last)
    }
    // Each utterance's speech lies in its sentence's clip, give or take the detector's edges.
    for (words, span) in zip(utterances, room.spans) {
      guard let first = words.first, let last = words.last else { continue }
      #expect(first.timestamp > span.lowerBound - 0.3 && first.timestamp < span.upperBound)
      #expect(abs(last.timestamp + last.duration - span.upperBound) < 0.6)
    }
  }

  @Test func theEnergyDetectorStillCutsTheSameRoom() throws {
    // The fallback keeps working (it loses words in noise, which is why Silero is the default).
    let directory = try TemporaryDirectory()
    let room = try NoisySpeech.room(in: directory.url, snr: 10)
    let samples = try NoisySpeech.samples(of: room.url)
    let recognizer = try MoonshineRecognizer(configuration: configuration(.energy, partials: false))
    let events = try stream(samples, to: recognizer, chunk: 800)
    let rate = errorRate(finalText(events), room.references)
    #expect(!finalText(events).isEmpty)
    #expect(rate < 1)
  }

  @Test func noiseAloneIsNeverDecoded() throws {
    // Ten seconds of the fan with nobody speaking: no utterance, and no partial either (nothing
    // is decoded while nobody speaks).
    let directory = try TemporaryDirectory()
    _ = try NoisySpeech.room(in: directory.url, snr: 5)
    let noise = try NoisySpeech.samples(
      of: directory.url.appendingPathComponent("room-pinknoise.wav"))
    let recognizer = try MoonshineRecognizer(configuration: configuration(try installedSilero()))
    let events = try stream(Array(noise.prefix(10 * 16_000)), to: recognizer, chunk: 800)
    #expect(events.isEmpty, "\(events)")
  }

  @Test func noisyClipsDecodeAsTheModelHearsThemWhole() throws {
    // A file's piece is decoded once, trimmed to the detector's speech: the words the model
    // gives for the whole clip.
    let directory = try TemporaryDirectory()
    let recognizer = try MoonshineRecognizer(
      configuration: configuration(try installedSilero(), partials: false))
    var ours = 0
    var whole = 0
    var total = 0
    for clip in try NoisySpeech.libriVoxClips() {
      let noisy = try NoisySpeech.mix(clip.url, snr: 10, in: directory.url)
      let samples = try NoisySpeech.samples(of: noisy)
      let events = try recognizer.decodeSegment(samples, startingAt: 0)
      let model = try floats(samples).withUnsafeBufferPointer {
        try #require(recognizer.model).transcribe($0)
      }
      let reference = normalizedWords(clip.reference)
      ours += editDistance(normalizedWords(finalText(events)), reference)
      whole += editDistance(normalizedWords(model.text), reference)
      total += reference.count
    }
    #expect(
      Double(ours) / Double(total) <= Double(whole) / Double(total) + 0.01,
      "ours \(ours), the whole clips \(whole) errors in \(total) words")
  }
}
