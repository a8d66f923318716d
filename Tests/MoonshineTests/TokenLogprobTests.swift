import Foundation
import Recognition
import Testing

@testable import Moonshine

/// A transcript's words carry the tokens that wrote them, with their log probabilities, in
/// final and partial results alike; a partial word's confidence is 0.
@Suite struct TokenLogprobTests {
  static let transcript = MoonshineTranscript(
    tokens: [10, 11, 12], probabilities: [0.5, 1, 0.25],
    tokenBytes: [Array(" Go".utf8), Array(" for".utf8), Array("ward.".utf8)],
    text: "Go forward.",
    words: [
      .init(text: "Go", confidence: 0.5, tokens: [0]),
      .init(text: "forward.", confidence: 0.25, tokens: [1, 2]),
    ])

  @Test func eachWordHasItsTokensBytesAndTheLogOfTheirProbabilities() {
    let words = Self.transcript.recognizedWords(from: 0, to: 1)
    #expect(
      words.map(\.tokens) == [
        [RecognizedToken(bytes: Array(" Go".utf8), logprob: log(0.5))],
        [
          RecognizedToken(bytes: Array(" for".utf8), logprob: 0),
          RecognizedToken(bytes: Array("ward.".utf8), logprob: log(0.25)),
        ],
      ])
  }

  @Test func partialWordsHaveTokensButNoConfidence() {
    let partial = Self.transcript.recognizedWords(from: 0, to: 1, isPartial: true)
    let final = Self.transcript.recognizedWords(from: 0, to: 1)
    #expect(partial.allSatisfy { $0.confidence == 0 })
    #expect(final.allSatisfy { $0.confidence > 0 })
    #expect(partial.map(\.tokens) == final.map(\.tokens))
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func theModelsTokensSpellItsWords() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let samples = floats(try goForwardSamples())
    let transcript = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
    let words = transcript.recognizedWords(from: 0, to: 2)
    for word in words {
      #expect(!word.tokens.isEmpty)
      #expect(word.tokens.allSatisfy { $0.logprob <= 0 })
      let spelled = String(decoding: word.tokens.flatMap(\.bytes), as: UTF8.self)
      #expect(spelled.trimmingCharacters(in: .whitespaces) == word.text)
    }
  }
}
