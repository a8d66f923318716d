import Foundation
import Synchronization
import Testing

@testable import Recognition

/// A recognizer that "hears" the number of samples it is fed, and counts how many were loaded.
final class CountingRecognizer: SpeechRecognizer {
  static let loads = Atomic<Int>(0)
  private var heard = 0

  init() {
    Self.loads.add(1, ordering: .relaxed)
  }

  func process(
    _ samples: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure)
    -> [RecognitionEvent]
  {
    heard += samples.count
    return []
  }

  func finish() throws(RecognitionFailure) -> [RecognizedWord]? {
    defer { heard = 0 }
    guard heard > 0 else { return nil }
    return [RecognizedWord(text: "\(heard)", timestamp: 0, duration: 0.5, confidence: 1)]
  }

  func reset() throws(RecognitionFailure) {
    heard = 0
  }
}

@Suite(.serialized) struct RecognizerPoolTests {
  /// Runs `pieces` on `pool` and returns what each job decoded, in submission order.
  func decode(
    _ pieces: [[Int16]], on pool: RecognizerPool<CountingRecognizer>
  ) async -> [Result<[RecognitionEvent], RecognitionFailure>] {
    await withTaskGroup(of: (Int, Result<[RecognitionEvent], RecognitionFailure>).self) { group in
      for (index, piece) in pieces.enumerated() {
        group.addTask {
          await withCheckedContinuation { continuation in
            pool.submit { recognizer in
              let result = recognizer.flatMap { recognizer in
                Result { () throws(RecognitionFailure) in
                  try recognizer.decodeSegment(piece, startingAt: Double(index))
                }
              }
              continuation.resume(returning: (index, result))
            }
          }
        }
      }
      var results: [(Int, Result<[RecognitionEvent], RecognitionFailure>)] = []
      for await result in group { results.append(result) }
      return results.sorted { $0.0 < $1.0 }.map(\.1)
    }
  }

  @Test func everyPieceIsDecodedFromAFreshStateWithTimesFromItsOffset() async throws {
    let pool = RecognizerPool(size: 2) { () throws(RecognitionFailure) in CountingRecognizer() }
    let pieces = (1...6).map { [Int16](repeating: 1, count: $0 * 1000) }
    let results = await decode(pieces, on: pool)
    for (index, result) in results.enumerated() {
      let events = try result.get()
      #expect(events.count == 1)
      let word = try #require(events.first?.words.first)
      // What a worker heard before does not leak into the next piece.
      #expect(word.text == "\((index + 1) * 1000)")
      #expect(word.timestamp == Double(index))
    }
  }

  @Test func workersLoadOnceEachAndNeverMoreThanTheSize() async throws {
    let before = CountingRecognizer.loads.load(ordering: .relaxed)
    let pool = RecognizerPool(size: 2) { () throws(RecognitionFailure) in CountingRecognizer() }
    _ = await decode(Array(repeating: [1, 2, 3], count: 20), on: pool)
    #expect(pool.workerCount <= 2)
    // A worker loads when it takes its first job; one started late may find none left.
    let loads = CountingRecognizer.loads.load(ordering: .relaxed) - before
    #expect((1...pool.workerCount).contains(loads))
  }

  @Test func aLoadFailureIsHandedToEveryJob() async {
    let pool = RecognizerPool<CountingRecognizer>(size: 2) { () throws(RecognitionFailure) in
      throw .modelMissing("no model here")
    }
    let results = await decode([[1], [2], [3]], on: pool)
    #expect(results.count == 3)
    for result in results {
      #expect(throws: RecognitionFailure.modelMissing("no model here")) { try result.get() }
    }
  }

  @Test func aPieceWithoutWordsGivesNoEvents() throws {
    let recognizer = CountingRecognizer()
    #expect(try recognizer.decodeSegment([], startingAt: 3).isEmpty)
  }

  @Test func aPoolHasAtLeastOneWorker() {
    let pool = RecognizerPool(size: 0) { () throws(RecognitionFailure) in CountingRecognizer() }
    #expect(pool.size == 1)
  }

  @Test func anyPoolHandsOutItsRecognizerAsTheProtocol() async throws {
    let pool: any AnyRecognizerPool = RecognizerPool(size: 1) {
      () throws(RecognitionFailure) in CountingRecognizer()
    }
    let isCounting = await withCheckedContinuation { continuation in
      pool.submitAny { recognizer in
        continuation.resume(returning: (try? recognizer.get()) is CountingRecognizer)
      }
    }
    #expect(isCounting)
  }

  @Test func workersBusyCountsTheWorkersOnAJobForLongerThanTheBound() async {
    let pool = RecognizerPool(size: 2) { () throws(RecognitionFailure) in CountingRecognizer() }
    #expect(pool.workersBusy(longerThan: .zero) == 0)
    let release = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<2 {
      pool.submit { _ in
        started.signal()
        release.wait()
        done.signal()
      }
    }
    started.wait()
    started.wait()
    #expect(pool.workersBusy(longerThan: .zero) == 2)
    #expect(pool.workersBusy(longerThan: .seconds(3600)) == 0)
    release.signal()
    done.wait()
    // The worker that finished no longer counts once it waits for the next job (a real thread:
    // look again until it gets there, for at most five seconds).
    let deadline = ContinuousClock.now + .seconds(5)
    while pool.workersBusy(longerThan: .zero) != 1, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(pool.workersBusy(longerThan: .zero) == 1)
    release.signal()
    done.wait()
  }
}
