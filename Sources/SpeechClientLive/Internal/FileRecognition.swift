import ConcurrencyExtras
import Foundation
import Recognition
import SpeechClient

/// The recognition of one file whose pieces are decoded out of order on a decoder pool: collects
/// the decoded pieces and delivers their results in order on the file's stream.
///
/// The reader says what it opened (``opened(totalDuration:recordedSampleRate:)``), registers each
/// piece (``addSegment(endingAt:)``) before it is decoded, and says when the file has no more
/// (``readingEnded(at:failure:)``); workers hand in what they decoded (``segmentDecoded(_:_:)``).
/// Whatever arrives, results go out in the file's order, each with the audio position it stands
/// for (``RecognitionProgress``), and, when partial results are requested, a progress-only result
/// at least every ``reportInterval`` of audio. The stream hands out one result at a time as the
/// consumer asks for it, so a consumer that stops at an audio time (`--duration`) stops within
/// a step of it: the results not taken yet are dropped. The last result has `isFinal == true`; a
/// read or decoding failure ends the stream with that failure after the words before it.
final class FileRecognition: Sendable {
  /// Audio time between progress-only results.
  static let reportInterval: TimeInterval = 0.25

  let request: SpeechRecognitionRequest
  let stream: AsyncThrowingStream<SpeechRecognitionResult, any Error>
  private let state = LockIsolated(State())

  private struct State {
    var decoded: [Int: Result<[RecognitionEvent], SpeechClient.Failure>] = [:]
    var segmentEnds: [Int: TimeInterval] = [:]
    var segmentLengths: [Int: TimeInterval] = [:]
    /// Seconds of audio in the pieces decoded so far.
    var decodedAudio: TimeInterval = 0
    var segmentCount = 0
    var emitted = 0
    var isReadingDone = false
    var readEnd: TimeInterval = 0
    var readFailure: SpeechClient.Failure?
    var totalDuration: TimeInterval?
    var recordedSampleRate: Int?
    var detectedLanguage: String?
    var isStopped = false
    var isFinished = false
    var transcript = Transcript()
    /// The audio position of the last result made.
    var position: TimeInterval = 0
    var lastReported: TimeInterval = 0
    /// Results made and not taken yet, and how the stream ends after them.
    var pending: [(result: SpeechRecognitionResult, transcript: Transcript)] = []
    var ending: Result<Void, SpeechClient.Failure>?
    var puller: CheckedContinuation<SpeechRecognitionResult?, any Error>?
    /// The transcript and position of the last result taken, which a stop keeps.
    var taken = Transcript()
    var takenPosition: TimeInterval = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
    var reportsProgress = false
    /// Whether the file opened and its pieces decode: a failure before that has no result.
    var isDecoding = false
  }

  init(request: SpeechRecognitionRequest) {
    self.request = request
    let state = self.state
    state.withValue {
      $0.reportsProgress = request.shouldReportPartialResults
      $0.transcript = Transcript(keepingLast: request.keptUtterances)
      $0.taken = $0.transcript
    }
    stream = AsyncThrowingStream {
      try await withTaskCancellationHandler {
        try await Self.next(state)
      } onCancel: {
        Self.stop(state)
      }
    }
  }

  /// Whether the consumer stopped listening: the rest of the file need not be read or decoded.
  var isStopped: Bool {
    state.withValue { $0.isStopped || $0.isFinished }
  }

  /// Whether the file has been decoded to its end (or failed, or was stopped), whether or not
  /// its results have been taken yet.
  var isFinished: Bool {
    state.withValue { $0.isFinished }
  }

  /// Seconds of audio in the pieces decoded so far.
  var decodedAudio: TimeInterval {
    state.withValue { $0.decodedAudio }
  }

  /// Notes the length and recording rate of the opened file; a rate below the recommended one
  /// is reported at once, before any words.
  func opened(
    totalDuration: TimeInterval?, recordedSampleRate: Int?, detectedLanguage: String? = nil
  ) {
    state.withValue { state in
      state.isDecoding = true
      state.totalDuration = totalDuration
      state.recordedSampleRate = recordedSampleRate
      state.detectedLanguage = detectedLanguage
      if let recordedSampleRate, recordedSampleRate < RecognitionProgress.recommendedSampleRate {
        Self.make(&state, isFinal: false)
        Self.hand(&state)
      }
    }
  }

  /// Registers the next piece, from `start` to `end` seconds into the file; returns its index.
  func addSegment(startingAt start: TimeInterval, endingAt end: TimeInterval) -> Int {
    state.withValue { state in
      defer { state.segmentCount += 1 }
      state.segmentEnds[state.segmentCount] = end
      state.segmentLengths[state.segmentCount] = end - start
      return state.segmentCount
    }
  }

  /// Hands in the words of piece `index` (or why it could not be decoded).
  func segmentDecoded(_ index: Int, _ result: Result<[RecognitionEvent], SpeechClient.Failure>) {
    state.withValue { state in
      state.decodedAudio += state.segmentLengths.removeValue(forKey: index) ?? 0
      state.decoded[index] = result
      deliver(&state)
    }
  }

  /// Says that every piece has been registered, how much audio was read, and whether reading
  /// failed after the pieces.
  func readingEnded(at end: TimeInterval, failure: SpeechClient.Failure?) {
    state.withValue { state in
      state.isReadingDone = true
      state.readEnd = end
      state.readFailure = failure
      deliver(&state)
    }
  }

  /// Stops at once: the results not taken yet are dropped, and the stream ends with a final
  /// result holding what was taken.
  func stop() {
    Self.stop(state)
  }

  private static func stop(_ state: LockIsolated<State>) {
    state.withValue { state in
      guard !state.isStopped, !state.isFinished else { return }
      state.isStopped = true
      state.decoded = [:]
      state.pending = []
      state.transcript = state.taken
      state.position = state.takenPosition
      make(&state, isFinal: true)
      finish(&state, throwing: nil)
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

  /// The next result for the stream's consumer, waiting for it if need be; `nil` at the end.
  private static func next(_ state: LockIsolated<State>) async throws -> SpeechRecognitionResult? {
    try await withCheckedThrowingContinuation { puller in
      state.withValue { state in
        state.puller = puller
        hand(&state)
      }
    }
  }

  /// Gives the waiting consumer the next result, or the end, when there is one.
  private static func hand(_ state: inout State) {
    guard let puller = state.puller else { return }
    if !state.pending.isEmpty {
      state.puller = nil
      let (result, transcript) = state.pending.removeFirst()
      state.taken = transcript
      state.takenPosition = result.progress?.audioDuration ?? state.takenPosition
      puller.resume(returning: result)
    } else if let ending = state.ending {
      state.puller = nil
      switch ending {
      case .success: puller.resume(returning: nil)
      case .failure(let failure): puller.resume(throwing: failure)
      }
    }
  }

  /// Delivers every piece that is next in order, and ends the stream when nothing is left.
  private func deliver(_ state: inout State) {
    guard !state.isFinished else { return }
    while let result = state.decoded.removeValue(forKey: state.emitted) {
      let end = state.segmentEnds.removeValue(forKey: state.emitted) ?? state.position
      switch result {
      case let .success(events):
        for event in events {
          // An event stands at the end of its last word, within its piece.
          let time = Self.end(of: event) ?? state.position
          Self.advance(&state, to: min(end, max(state.position, time)))
          state.transcript.apply(event)
          Self.make(&state, isFinal: false)
        }
        Self.advance(&state, to: end)
        state.emitted += 1
      case let .failure(failure):
        if state.emitted > 0 { Self.make(&state, isFinal: true) }
        Self.finish(&state, throwing: failure)
        return
      }
    }
    if state.isReadingDone, state.emitted == state.segmentCount {
      Self.advance(&state, to: max(state.position, state.readEnd))
      if state.isDecoding || state.readFailure == nil { Self.make(&state, isFinal: true) }
      Self.finish(&state, throwing: state.readFailure)
    } else {
      Self.hand(&state)
    }
  }

  /// Moves the position on to `time`, with a progress-only result every ``reportInterval`` of
  /// audio when partial results are requested.
  private static func advance(_ state: inout State, to time: TimeInterval) {
    guard time > state.position else { return }
    if state.reportsProgress {
      var step = state.lastReported + reportInterval
      while step < time {
        state.position = step
        make(&state, isFinal: false)
        step = state.lastReported + reportInterval
      }
    }
    state.position = time
  }

  /// Makes the result for the current transcript and position.
  private static func make(_ state: inout State, isFinal: Bool) {
    state.lastReported = state.position
    let total = state.totalDuration.map { max($0, state.position) }
    let progress = RecognitionProgress(
      audioDuration: state.position, totalAudioDuration: total,
      recordedSampleRate: state.recordedSampleRate, detectedLanguage: state.detectedLanguage)
    state.pending.append(
      (state.transcript.result(isFinal: isFinal, progress: progress), state.transcript))
  }

  private static func end(of event: RecognitionEvent) -> TimeInterval? {
    switch event {
    case let .partial(words), let .utterance(words), let .revision(words):
      words.last.map { $0.timestamp + $0.duration }
    }
  }

  private static func finish(_ state: inout State, throwing failure: SpeechClient.Failure?) {
    state.isFinished = true
    state.decoded = [:]
    state.ending = failure.map { .failure($0) } ?? .success(())
    hand(&state)
    for waiter in state.waiters { waiter.resume() }
    state.waiters = []
  }
}
