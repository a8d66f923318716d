import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import Moonshine

@Suite(.enabled(if: isModelInstalled, modelRequirement))
struct TranscriptionTests {
  @Test func goForward() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let samples = floats(try goForwardSamples())
    let transcript = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
    #expect(normalizedWords(transcript.text) == ["go", "forward", "ten", "meters"])
    #expect(transcript.words.count == 4)
    #expect(transcript.ending == .endOfText)
    #expect(transcript.probabilities.count == transcript.tokens.count)
    for word in transcript.words {
      #expect(word.confidence > 0.3 && word.confidence <= 1)
    }
    #expect(transcript.decoderSteps == transcript.tokens.count + 1)
  }

  @Test func aPrefixTheModelAgreesWithIsKeptInOnePass() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let samples = floats(try goForwardSamples())
    let full = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
    let reused = try samples.withUnsafeBufferPointer {
      try model.transcribe($0, prefix: full.tokens)
    }
    #expect(reused.tokens == full.tokens)
    #expect(reused.keptPrefixCount == full.tokens.count)
    #expect(reused.decoderSteps == 1)
    // A partial from a shorter piece: its first tokens are kept, the rest decoded.
    let half = try samples.withUnsafeBufferPointer {
      try model.transcribe(UnsafeBufferPointer(rebasing: $0[..<(samples.count / 2)]))
    }
    let grown = try samples.withUnsafeBufferPointer {
      try model.transcribe($0, prefix: half.reusableTokens)
    }
    #expect(grown.tokens == full.tokens)
    // The same probabilities, up to the int8 arithmetic of a converted model's MatMulNBits (one
    // pass over many tokens and one step per token round differently).
    for (reusedProbability, probability) in zip(grown.probabilities, full.probabilities) {
      #expect(abs(reusedProbability - probability) < 0.03)
    }
  }

  @Test func aWrongPrefixIsDropped() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let samples = floats(try goForwardSamples())
    let full = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
    var wrong = full.tokens
    wrong[1] = wrong[1] == 500 ? 501 : 500
    wrong += [600, 601, 602]
    let transcript = try samples.withUnsafeBufferPointer {
      try model.transcribe($0, prefix: wrong)
    }
    #expect(transcript.tokens == full.tokens)
    #expect(transcript.keptPrefixCount == 1)
  }

  @Test func libriVoxClipsHaveAFewErrorsAtMost() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    var errors = 0
    var words = 0
    for clip in try libriVoxClips() {
      let events = try recognizer.decodeSegment(clip.samples, startingAt: 0)
      let reference = normalizedWords(clip.reference)
      errors += editDistance(normalizedWords(finalText(events)), reference)
      words += reference.count
    }
    let wordErrorRate = Double(errors) / Double(words)
    #expect(wordErrorRate <= 0.1, "WER \(wordErrorRate)")
  }

  @Test func cutOffAudioStopsWithinTheTokenLimit() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let samples = floats(try goForwardSamples())
    // Cut in the middle of "forward", and the tail of it alone.
    for piece in [samples[..<16_000], samples[14_000..<20_000]] {
      let transcript = try Array(piece).withUnsafeBufferPointer { try model.transcribe($0) }
      #expect(transcript.tokens.count <= MoonshineModel.maximumTokens(forSamples: piece.count))
    }
    // A prefix that loops is cut to the limit, and decoding stops there.
    let looping = [Int32](repeating: 1_000, count: 100)
    let transcript = try samples.withUnsafeBufferPointer {
      try model.transcribe(UnsafeBufferPointer(rebasing: $0[..<8_000]), prefix: looping)
    }
    #expect(transcript.tokens.count <= MoonshineModel.maximumTokens(forSamples: 8_000))
  }

  @Test func silenceAndVeryShortAudioAreNotSentToTheModel() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    #expect(try recognizer.decodeSegment([Int16](repeating: 0, count: 48_000), startingAt: 0) == [])
    var generator = SystemRandomNumberGenerator()
    let noise = (0..<48_000).map { _ in Int16.random(in: -30...30, using: &generator) }
    #expect(try recognizer.decodeSegment(noise, startingAt: 0) == [])
    let model = try MoonshineModel.shared(installedConfiguration)
    let short = [Float](repeating: 0.1, count: 800)
    #expect(try short.withUnsafeBufferPointer { try model.transcribe($0) } == MoonshineTranscript())
  }

  @Test func aSegmentsWordsAreTimedFromTheStartOfTheInput() throws {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    let samples = try goForwardSamples()
    let events = try recognizer.decodeSegment(samples, startingAt: 10)
    #expect(events.count == 1)
    guard case let .utterance(words) = events.first else {
      Issue.record("expected one utterance, got \(events)")
      return
    }
    #expect(
      normalizedWords(words.map(\.text).joined(separator: " ")) == [
        "go", "forward", "ten", "meters",
      ])
    let duration = Double(samples.count) / 16_000
    #expect(words.first!.timestamp > 10 && words.first!.timestamp < 10 + duration / 2)
    let last = words.last!
    #expect(last.timestamp + last.duration <= 10 + duration)
    for (word, next) in zip(words, words.dropFirst()) {
      #expect(abs(word.timestamp + word.duration - next.timestamp) < 1e-9)
      #expect(word.duration > 0)
      #expect(word.alternatives.isEmpty)
      #expect(word.confidence > 0)
    }
  }

  @Test func loopsAreFoundAtTheEnd() {
    #expect(MoonshineModel.loopStart(in: [5, 6, 7]) == 3)
    // A three-token phrase three times: keep the first copy.
    #expect(MoonshineModel.loopStart(in: [9, 1, 2, 3, 1, 2, 3, 1, 2, 3]) == 4)
    #expect(MoonshineModel.loopStart(in: [9, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]) == 4)
    // "no, no, no" is speech: a pair needs four copies, a single token eight.
    #expect(MoonshineModel.loopStart(in: [8, 1, 2, 1, 2, 1, 2]) == 7)
    #expect(MoonshineModel.loopStart(in: [8, 1, 2, 1, 2, 1, 2, 1, 2]) == 3)
    #expect(MoonshineModel.loopStart(in: [4, 4, 4, 4, 4, 4, 4]) == 7)
    #expect(MoonshineModel.loopStart(in: [4, 4, 4, 4, 4, 4, 4, 4]) == 1)
  }

  @Test func twoRecognizersOnTwoThreadsShareOneModel() throws {
    let clip = try libriVoxClips()[1]
    let inputs = [try goForwardSamples(), clip.samples]
    let results = Results()
    // Each thread makes its own recognizer and decodes twice, at the same time as the other.
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      do {
        let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
        results.add(index, model: ObjectIdentifier(try #require(recognizer.model)))
        for _ in 0..<2 {
          results.add(index, Result { try recognizer.decodeSegment(inputs[index], startingAt: 0) })
        }
      } catch {
        results.add(index, .failure(error))
      }
    }
    #expect(results.models.count == 1)
    let expected = [["go", "forward", "ten", "meters"], normalizedWords(clip.reference)]
    for index in 0..<2 {
      #expect(results.values(index).count == 2)
      for result in results.values(index) {
        let text = finalText(try result.get())
        #expect(normalizedWords(text) == expected[index], "\(text)")
      }
    }
  }
}

/// Results collected from several threads.
final class Results: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [Int: [Result<[RecognitionEvent], any Error>]] = [:]
  private var modelIdentifiers: Set<ObjectIdentifier> = []

  /// The distinct models the threads' recognizers used.
  var models: Set<ObjectIdentifier> { lock.withLock { modelIdentifiers } }

  func add(_ key: Int, model: ObjectIdentifier) {
    lock.withLock { _ = modelIdentifiers.insert(model) }
  }

  func add(_ key: Int, _ result: Result<[RecognitionEvent], any Error>) {
    lock.withLock { results[key, default: []].append(result) }
  }

  func values(_ key: Int) -> [Result<[RecognitionEvent], any Error>] {
    lock.withLock { results[key] ?? [] }
  }
}
