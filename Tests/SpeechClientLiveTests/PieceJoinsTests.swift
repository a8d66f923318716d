import ConcurrencyExtras
import Foundation
import Recognition
import SpeechClient
import Testing

@testable import SpeechClientLive

/// The join across a cut made for length, with a recognizer that writes down what it was given.
struct PieceJoinsTests {
  /// Decodes any audio as one utterance "joined" spanning it, and records each call.
  final class JoiningRecognizer: SpeechRecognizer {
    let calls = LockIsolated<[(samples: Int, offset: TimeInterval)]>([])

    func process(
      _ samples: UnsafeBufferPointer<Int16>
    ) throws(RecognitionFailure) -> [RecognitionEvent] { [] }
    func finish() throws(RecognitionFailure) -> [RecognizedWord]? { nil }
    func reset() throws(RecognitionFailure) {}

    func decodeSegment(
      _ samples: [Int16], startingAt offset: TimeInterval
    ) throws(RecognitionFailure) -> [RecognitionEvent] {
      calls.withValue { $0.append((samples.count, offset)) }
      let length = Double(samples.count) / 16_000
      return [.utterance([word("joined", offset + 0.3, offset + length - 0.3)])]
    }
  }

  static func word(_ text: String, _ start: TimeInterval, _ end: TimeInterval) -> RecognizedWord {
    RecognizedWord(text: text, timestamp: start, duration: end - start, confidence: 1)
  }

  /// A file's recognition, without partial results.
  static func recognition() -> FileRecognition {
    FileRecognition(
      request: SpeechRecognitionRequest(
        source: .file(URL(fileURLWithPath: "/dev/null")), shouldReportPartialResults: false))
  }

  /// The text of `recognition`'s last final result.
  static func finalText(of recognition: FileRecognition) async throws -> String {
    var text = ""
    for try await result in recognition.stream where result.isFinal {
      text = result.bestTranscription.formattedString
    }
    return text
  }

  /// A piece of silence from `start` to `end` seconds.
  static func piece(_ start: TimeInterval, _ end: TimeInterval) -> UtteranceSegmenter.Segment {
    UtteranceSegmenter.Segment(
      start: Int(start * 16_000), samples: Array(repeating: 0, count: Int((end - start) * 16_000)),
      isCutForLength: true)
  }

  /// Two pieces cut for length at 4 s: "One." at 0.5–1.0 and `last` at 2.0–3.0 s before the
  /// cut, `first` at 4.5–5.0 and "Four." at 6.0–7.0 after it. Hands in the second piece first,
  /// then the first, and returns the file's final text and the recognizer's calls.
  func run(
    last: String, first: String, endsSentence: Bool, cutForLength: Bool = true
  ) async throws -> (text: String, calls: [(samples: Int, offset: TimeInterval)]) {
    let recognition = Self.recognition()
    let joins = PieceJoins(recognition: recognition, longest: 30)
    let recognizer = JoiningRecognizer()
    let pieces = [Self.piece(0, 4), Self.piece(4, 8)]
    for piece in pieces {
      _ = recognition.addSegment(startingAt: piece.startTime, endingAt: piece.startTime + 4)
    }
    if cutForLength { joins.cutForLength(0) }
    joins.decoded(
      1,
      .success([
        .utterance([Self.word(first, 4.5, 5.0)]), .utterance([Self.word("Four.", 6.0, 7.0)]),
      ]), piece: pieces[1], endsSentence: true, using: recognizer)
    #expect(recognizer.calls.value.isEmpty, "a join waits for the piece before the cut")
    joins.decoded(
      0,
      .success([
        .utterance([Self.word("One.", 0.5, 1.0)]), .utterance([Self.word(last, 2.0, 3.0)]),
      ]), piece: pieces[0], endsSentence: endsSentence, using: recognizer)
    joins.readingEnded(pieces: 2, using: recognizer)
    recognition.readingEnded(at: 8, failure: nil)
    return (try await Self.finalText(of: recognition), recognizer.calls.value)
  }

  @Test func aSentenceThatMayGoOnIsDecodedAgainAcrossTheCut() async throws {
    let (text, calls) = try await run(last: "made", first: "Amiable", endsSentence: false)
    #expect(text == "One. joined Four.")
    // From 0.3 s before the last utterance's first word to 0.3 s after the next one's last.
    let call = try #require(calls.first)
    #expect(calls.count == 1)
    #expect(abs(call.offset - 1.7) < 0.001)
    #expect(abs(Double(call.samples) / 16_000 - 3.6) < 0.001)
  }

  @Test func aCertainEndFollowedByACapitalNeedsNoSecondLook() async throws {
    let (text, calls) = try await run(last: "was.", first: "He", endsSentence: true)
    #expect(text == "One. was. He Four.")
    #expect(calls.isEmpty)
  }

  @Test func aCertainEndFollowedByALowerCaseWordIsLookedAtAgain() async throws {
    let (text, calls) = try await run(last: "made.", first: "amiable", endsSentence: true)
    #expect(text == "One. joined Four.")
    #expect(calls.count == 1)
  }

  @Test func aCutAtALongPauseIsLeftAlone() async throws {
    let (text, calls) = try await run(
      last: "made", first: "Amiable", endsSentence: false, cutForLength: false)
    #expect(text == "One. made Amiable Four.")
    #expect(calls.isEmpty)
  }

  /// Three pieces cut for length at 4 and 8 s: "One." and "made" before the first cut, one
  /// utterance "even" (4.5–7.5 s) between the cuts, `first` and "Four." after the second.
  /// `sure` is what the recognizer says of a join's last sentence.
  func runAcrossTwoCuts(
    first: String, sure: Bool
  ) async throws -> (text: String, calls: [(samples: Int, offset: TimeInterval)]) {
    let recognition = Self.recognition()
    let joins = PieceJoins(recognition: recognition, longest: 30, endsSentence: { _ in sure })
    let recognizer = JoiningRecognizer()
    let pieces = [Self.piece(0, 4), Self.piece(4, 8), Self.piece(8, 12)]
    for piece in pieces {
      _ = recognition.addSegment(startingAt: piece.startTime, endingAt: piece.startTime + 4)
    }
    joins.cutForLength(0)
    joins.cutForLength(1)
    let results: [[RecognitionEvent]] = [
      [.utterance([Self.word("One.", 0.5, 1.0)]), .utterance([Self.word("made", 2.0, 3.0)])],
      [.utterance([Self.word("even", 4.5, 7.5)])],
      [.utterance([Self.word(first, 8.5, 9.0)]), .utterance([Self.word("Four.", 10, 11)])],
    ]
    for index in [2, 0, 1] {
      joins.decoded(
        index, .success(results[index]), piece: pieces[index], endsSentence: false,
        using: recognizer)
    }
    joins.readingEnded(pieces: 3, using: recognizer)
    recognition.readingEnded(at: 12, failure: nil)
    return (try await Self.finalText(of: recognition), recognizer.calls.value)
  }

  @Test func aSentenceOverTwoCutsIsDecodedWholeAtTheSecond() async throws {
    let (text, calls) = try await runAcrossTwoCuts(first: "amiable", sure: false)
    // The first join's words are carried past the second cut and joined again there, with the
    // audio of both pieces before it: one sentence, not "joined amiable".
    #expect(text == "One. joined Four.")
    #expect(calls.count == 2)
    let second = try #require(calls.last)
    #expect(abs(second.offset - 1.7) < 0.001)
    #expect(abs(Double(second.samples) / 16_000 - 7.6) < 0.001)
  }

  /// The carried piece's end is judged by the recognizer's join decode (here sure of it), not by
  /// the piece's own decode (unsure): the capital after the cut then needs no second join.
  @Test func aCarriedSentenceTheRecognizerIsSureOfStopsAtTheSecondCut() async throws {
    let (text, calls) = try await runAcrossTwoCuts(first: "Amiable", sure: true)
    #expect(text == "One. joined Amiable Four.")
    #expect(calls.count == 1)
  }

  @Test func aLastPieceCutForLengthGoesOutWhenReadingEnds() async throws {
    let recognition = Self.recognition()
    let joins = PieceJoins(recognition: recognition, longest: 30)
    let piece = Self.piece(0, 4)
    _ = recognition.addSegment(startingAt: 0, endingAt: 4)
    joins.cutForLength(0)
    joins.decoded(
      0, .success([.utterance([Self.word("made", 2, 3)])]), piece: piece, endsSentence: false,
      using: nil)
    // Reading stopped before the next piece: the piece goes on its own.
    joins.readingEnded(pieces: 1, using: nil)
    recognition.readingEnded(at: 4, failure: nil)
    #expect(try await Self.finalText(of: recognition) == "made")
  }
}
