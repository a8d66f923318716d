import ConcurrencyExtras
import Foundation
import PocketSphinx
import SpeechClient

/// The recognition of one file whose pieces are decoded out of order on a decoder pool: collects
/// the decoded pieces and delivers their utterances in order on the file's stream.
///
/// The reader registers each piece (``addSegment(progress:)``) before it is decoded, and says
/// when the file has no more (``readingEnded(with:)``); workers hand in what they decoded
/// (``segmentDecoded(_:_:)``). Whatever arrives, results go out in the file's order: every
/// partial and utterance of a piece once all the pieces before it are out. The last result has
/// `isFinal == true`; a read or decoding failure ends the stream with that failure after the
/// words before it.
final class FileRecognition: Sendable {
  let request: SpeechRecognitionRequest
  let stream: AsyncThrowingStream<SpeechRecognitionResult, any Error>
  private let continuation: AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation
  private let state = LockIsolated(State())

  private struct State {
    var decoded: [Int: Result<[DecoderEvent], SpeechClient.Failure>] = [:]
    var progressAtEnd: [Int: Double] = [:]
    var segmentCount = 0
    var emitted = 0
    var isReadingDone = false
    var readFailure: SpeechClient.Failure?
    var isStopped = false
    var isFinished = false
    var transcript = Transcript()
    var progress: (@Sendable (Double) -> Void)?
    var lastPercent = -1
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  init(request: SpeechRecognitionRequest) {
    self.request = request
    (stream, continuation) = AsyncThrowingStream.makeStream(
      of: SpeechRecognitionResult.self, throwing: (any Error).self)
    continuation.onTermination = { [weak self] termination in
      if case .cancelled = termination { self?.stop() }
    }
  }

  /// Whether the consumer stopped listening: the rest of the file need not be read or decoded.
  var isStopped: Bool {
    state.withValue { $0.isStopped || $0.isFinished }
  }

  /// Reports progress (0…1, each percent, then 1) to `progress` from now on.
  func attach(progress: (@Sendable (Double) -> Void)?) {
    state.withValue { $0.progress = progress }
  }

  /// Registers the next piece; returns its index. `progress` is how much of the file has been
  /// read once this piece is complete.
  func addSegment(progress: Double?) -> Int {
    state.withValue { state in
      defer { state.segmentCount += 1 }
      if let progress { state.progressAtEnd[state.segmentCount] = progress }
      return state.segmentCount
    }
  }

  /// Hands in the words of piece `index` (or why it could not be decoded).
  func segmentDecoded(_ index: Int, _ result: Result<[DecoderEvent], SpeechClient.Failure>) {
    state.withValue { state in
      state.decoded[index] = result
      deliver(&state)
    }
  }

  /// Says that every piece has been registered, and whether reading failed after them.
  func readingEnded(with failure: SpeechClient.Failure?) {
    state.withValue { state in
      state.isReadingDone = true
      state.readFailure = failure
      deliver(&state)
    }
  }

  /// Stops at once: the pieces not delivered yet are dropped, and the stream ends with a final
  /// result holding what was delivered.
  func stop() {
    state.withValue { state in
      state.isStopped = true
      deliver(&state)
    }
  }

  /// Waits until the stream has its last result.
  func waitUntilFinished() async {
    await withCheckedContinuation { waiter in
      let isFinished = state.withValue { state in
        if !state.isFinished { state.waiters.append(waiter) }
        return state.isFinished
      }
      if isFinished { waiter.resume() }
    }
  }

  /// Delivers every piece that is next in order, and ends the stream when nothing is left.
  private func deliver(_ state: inout State) {
    guard !state.isFinished else { return }
    while !state.isStopped, let result = state.decoded.removeValue(forKey: state.emitted) {
      switch result {
      case let .success(events):
        for event in events {
          state.transcript.apply(event)
          continuation.yield(state.transcript.result(isFinal: false))
        }
        if let fraction = state.progressAtEnd.removeValue(forKey: state.emitted) {
          report(fraction, &state)
        }
        state.emitted += 1
      case let .failure(failure):
        finish(&state, throwing: failure)
        return
      }
    }
    if state.isStopped {
      finish(&state, throwing: nil)
    } else if state.isReadingDone, state.emitted == state.segmentCount {
      if state.readFailure == nil { report(1, &state) }
      finish(&state, throwing: state.readFailure)
    }
  }

  private func report(_ fraction: Double, _ state: inout State) {
    guard let progress = state.progress else { return }
    let percent = Int(fraction * 100)
    guard percent > state.lastPercent else { return }
    state.lastPercent = percent
    progress(fraction)
  }

  private func finish(_ state: inout State, throwing failure: SpeechClient.Failure?) {
    state.isFinished = true
    state.decoded = [:]
    continuation.yield(state.transcript.result(isFinal: true))
    continuation.finish(throwing: failure)
    for waiter in state.waiters { waiter.resume() }
    state.waiters = []
  }
}
