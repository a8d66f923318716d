import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import PocketSphinx

@Suite(
  .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
struct DecoderPoolTests {
  /// What one job saw: the decoder it got and what the piece decoded to.
  struct JobOutcome: Sendable {
    var decoder: ObjectIdentifier?
    var result: Result<[RecognitionEvent], RecognitionFailure>
  }

  /// Decodes each of `pieces` as a job on `pool`, all queued at once; returns the outcomes in
  /// the order of `pieces`.
  func decode(_ pieces: [[Int16]], on pool: DecoderPool) async -> [JobOutcome] {
    await withTaskGroup(of: (Int, JobOutcome).self) { group in
      for (index, piece) in pieces.enumerated() {
        group.addTask {
          await withCheckedContinuation { continuation in
            pool.submit { decoder in
              let outcome = JobOutcome(
                decoder: (try? decoder.get()).map(ObjectIdentifier.init),
                result: decoder.flatMap { decoder in
                  Result { () throws(RecognitionFailure) in
                    try decoder.decodeSegment(piece, startingAt: 0)
                  }
                })
              continuation.resume(returning: (index, outcome))
            }
          }
        }
      }
      var outcomes: [(Int, JobOutcome)] = []
      for await outcome in group { outcomes.append(outcome) }
      return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
    }
  }

  @Test func workersLoadTheModelOnceAndAreReusedForEveryJob() async throws {
    let goForward = try samples(ofRaw: SpeechTestData.goForward)
    let pool = DecoderPool(configuration: DecoderConfiguration(), size: 2)
    let outcomes = await decode(Array(repeating: goForward, count: 6), on: pool)
    for outcome in outcomes {
      #expect(utteranceWords(try outcome.result.get()) == ["go", "forward", "ten", "meters"])
    }
    // Six jobs, at most two decoders: each was loaded once and reused.
    #expect(Set(outcomes.compactMap(\.decoder)).count <= 2)
    #expect(pool.workerCount <= 2)
    // More jobs later reuse the same workers.
    let more = await decode([goForward], on: pool)
    #expect(Set(outcomes.compactMap(\.decoder)).isSuperset(of: more.compactMap(\.decoder)))
    #expect(pool.workerCount <= 2)
  }

  @Test func aPieceDecodesTheSameWhateverTheDecoderDecodedBefore() throws {
    let goForward = try samples(ofRaw: SpeechTestData.goForward)
    let numbers = try samples(
      ofRaw: SpeechTestData.directory.appendingPathComponent("numbers.raw"))
    let fresh = try Decoder(configuration: DecoderConfiguration())
    let expected = try fresh.decodeSegment(goForward, startingAt: 0)

    let used = try Decoder(configuration: DecoderConfiguration())
    _ = try used.decodeSegment(numbers, startingAt: 0)
    _ = try used.decodeSegment(goForward + numbers, startingAt: 0)
    #expect(try used.decodeSegment(goForward, startingAt: 0) == expected)
  }

  @Test func pieceTimesCountFromWhereThePieceStarts() throws {
    let goForward = try samples(ofRaw: SpeechTestData.goForward)
    let decoder = try Decoder(configuration: DecoderConfiguration())
    let atStart = try decoder.decodeSegment(goForward, startingAt: 0)
    let later = try decoder.decodeSegment(goForward, startingAt: 12.5)
    guard case .utterance(let first) = atStart.last, case .utterance(let second) = later.last
    else {
      Issue.record("no utterance: \(atStart), \(later)")
      return
    }
    #expect(first.map(\.text) == second.map(\.text))
    // "go" spans frames 46...63: 0.46 s into the piece.
    #expect(abs(first[0].timestamp - 0.46) < 0.05)
    for (word, shifted) in zip(first, second) {
      #expect(abs(shifted.timestamp - word.timestamp - 12.5) < 1e-9)
      #expect(shifted.duration == word.duration)
    }
  }

  @Test func aModelThatCannotLoadIsHandedToEveryJob() async {
    let pool = DecoderPool(
      configuration: DecoderConfiguration(
        search: .grammar(URL(fileURLWithPath: "/nonexistent/cards.gram"))),
      size: 2)
    let outcomes = await decode([[0, 0], [0, 0], [0, 0]], on: pool)
    for outcome in outcomes {
      guard case .failure(.modelFileNotFound(.grammar, _)) = outcome.result else {
        Issue.record("expected modelFileNotFound, got \(outcome.result)")
        continue
      }
    }
  }

  @Test func aPoolHasAtLeastOneWorker() {
    let pool = DecoderPool(configuration: DecoderConfiguration(), size: 0)
    #expect(pool.size == 1)
    #expect(pool.workerCount == 0)
  }
}
