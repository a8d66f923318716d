import AudioInput
import ConcurrencyExtras
import Foundation
import Moonshine
import PocketSphinx
import Recognition
import SpeechClient

/// One recognition: a dedicated thread that reads a source, decodes it, and yields results.
///
/// Reading and decoding block, so they run on a thread of their own, never on Swift's
/// cooperative pool; results cross into the stream through its continuation. Stopping
/// (``stop()``, used by `finishTask` and by the consumer cancelling), the end of a file and an
/// error all end the same way: capture stops, the utterance in progress is decoded, the last
/// result has `isFinal == true`, the stream finishes (throwing the error, if any), and the
/// decoder is freed on the thread that used it.
final class RecognitionTask: Sendable {
  private let stopSignal = StopSignal()
  private let completion = LockIsolated(Completion())

  private struct Completion {
    var isDone = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  /// Starts recognizing on a new thread.
  static func start(
    _ request: SpeechRecognitionRequest, configuration: LiveSpeechConfiguration
  ) -> (RecognitionTask, AsyncThrowingStream<SpeechRecognitionResult, any Error>) {
    let task = RecognitionTask()
    // Every result holds the whole transcript so far (sharing its finished utterances), so a
    // consumer that falls far behind loses only superseded snapshots, never words.
    let (stream, continuation) = AsyncThrowingStream.makeStream(
      of: SpeechRecognitionResult.self, throwing: (any Error).self,
      bufferingPolicy: .bufferingNewest(256))
    continuation.onTermination = { termination in
      if case .cancelled = termination { task.stopSignal.stop(discardingPendingAudio: true) }
    }
    let engine: LiveEngine
    do {
      engine = try configuration.engine(for: request)
    } catch {
      continuation.finish(throwing: error)
      task.markDone()
      return (task, stream)
    }
    if case .pushed = request.source {
      // A server's sessions come and go: each borrows a loaded recognizer from the shared pool
      // for as long as it streams, instead of loading the model again.
      // A phrase list restricts a default decoder for the session rather than loading one.
      var poolRequest = request
      if case .pocketsphinx(.phrases) = request.engine { poolRequest.engine = .pocketsphinx() }
      // A stream's hotwords are given to the borrowed recognizer for the stream (see `run`).
      let poolEngine = (try? configuration.pooledEngine(for: poolRequest)) ?? engine
      poolEngine.sharedPool(size: configuration.jobs).submitAny { recognizer in
        task.run(
          request, engine: engine, configuration: configuration, continuation: continuation,
          pooled: recognizer)
        task.markDone()
      }
    } else {
      DedicatedThread.start(name: "transcribe.recognition") {
        task.run(request, engine: engine, configuration: configuration, continuation: continuation)
        task.markDone()
      }
    }
    return (task, stream)
  }

  /// Asks the task to stop listening and deliver its last words; returns at once.
  func stop() {
    stopSignal.stop()
  }

  /// Waits until the thread has delivered its last result and freed the decoder.
  func waitUntilFinished() async {
    await withCheckedContinuation { continuation in
      let isDone = completion.withValue { completion in
        if !completion.isDone { completion.waiters.append(continuation) }
        return completion.isDone
      }
      if isDone { continuation.resume() }
    }
  }

  private func markDone() {
    let waiters = completion.withValue { completion in
      completion.isDone = true
      defer { completion.waiters = [] }
      return completion.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  private func run(
    _ request: SpeechRecognitionRequest,
    engine: LiveEngine,
    configuration: LiveSpeechConfiguration,
    continuation: AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation,
    pooled: Result<any SpeechRecognizer, RecognitionFailure>? = nil
  ) {
    var pushed: PushedAudio?
    if case let .pushed(audio) = request.source { pushed = audio }
    var transcript = Transcript(keepingLast: request.keptUtterances)
    var decoder: (any SpeechRecognizer)?
    // A pooled recognizer goes back to the pool forgetting this session.
    defer {
      if pooled != nil {
        try? (decoder as? Decoder)?.removeRestriction()
        try? decoder?.reset()
      }
    }
    var isOpeningSource = true
    do {
      try engine.validate()
      // The source opens before the model loads, so server and file problems are reported at
      // once, and the microphone's audio waits in the server's buffer during the load.
      let input = try request.source.open(configuration: configuration, stopSignal: stopSignal)
      isOpeningSource = false
      var position = AudioPosition(
        total: AudioBudget.length(of: input.totalDuration, for: request),
        recordedSampleRate: input.recordedSampleRate)
      var budget = AudioBudget(request)
      if position.isBelowRecommendedSampleRate {
        // Say so before the model loads and the first words come, so the host can warn at once.
        continuation.yield(transcript.result(isFinal: false, progress: position.report()))
      }
      let loaded: any SpeechRecognizer
      if let pooled {
        loaded = try pooled.get()
        // Whatever the pool's recognizer heard before must not shape this session's words.
        try loaded.reset()
        decoder = loaded
        if case let .pocketsphinx(.phrases(phrases)) = request.engine {
          guard let pocketsphinx = loaded as? Decoder else {
            throw RecognitionFailure.decoderFailure("a phrase list needs the pocketsphinx engine")
          }
          // A client that leaves stops the check of its phrases (the compile of the grammar
          // cannot be interrupted; the server caps its size): its pending audio is dropped and
          // the read below ends at once.
          let stopSignal = self.stopSignal
          try pocketsphinx.restrict(toPhrases: phrases) { stopSignal.discardsPendingAudio }
        }
        // The stream's phrases, until the recognizer goes back to the pool (its reset).
        engine.favourPhrases(on: loaded)
      } else {
        loaded = try engine.makeRecognizer()
      }
      if let tuning = request.voiceActivity {
        // The stream's own detector settings (a Realtime session's server VAD), until the
        // recognizer goes back to the pool.
        loaded.tuneVoiceActivity(
          threshold: tuning.threshold, endOfUtteranceSilence: tuning.minimumSilence)
        loaded.tuneEndpointing(
          judgesSentences: tuning.judgesSentences, maximumSilence: tuning.maximumSilence)
      }
      if let window = request.resumptionWindow {
        // Until the recognizer goes back to the pool.
        loaded.tuneResumption(window: window)
      }
      decoder = loaded
      while !budget.isSpent, var samples = try input.read() {
        budget.take(&samples)
        // Audio that came faster than it is decoded (a server's client sending a file, a backlog)
        // gets partial results only for its newest chunk: the older ones would be stale.
        loaded.isCatchingUp = input.hasWaitingAudio
        let events = try samples.withUnsafeBufferPointer { samples throws(RecognitionFailure) in
          try loaded.process(samples)
        }
        position.advance(by: samples.count)
        for event in events {
          transcript.apply(event)
          continuation.yield(transcript.result(isFinal: false, progress: position.report()))
        }
        if let pushed {
          // Pushed audio reports its position in the host's own audio time after every chunk,
          // so the host knows when everything it pushed has been decoded.
          continuation.yield(
            transcript.result(
              isFinal: false,
              progress: RecognitionProgress(
                audioDuration: pushed.consumedDuration, recordedSampleRate: pushed.sampleRate)))
        } else if events.isEmpty, request.shouldReportPartialResults, position.isDueForReport {
          continuation.yield(transcript.result(isFinal: false, progress: position.report()))
        }
        if stopSignal.isStopped, !input.drainsWhenStopped { break }
      }
      if let words = try loaded.finish() { transcript.apply(.utterance(words)) }
      continuation.yield(
        transcript.result(
          isFinal: true,
          progress: pushed.map {
            RecognitionProgress(
              audioDuration: $0.consumedDuration, recordedSampleRate: $0.sampleRate)
          } ?? position.report()))
      continuation.finish()
    } catch {
      if let decoder {
        if let words = try? decoder.finish() { transcript.apply(.utterance(words)) }
        continuation.yield(transcript.result(isFinal: true))
      } else if stopSignal.isStopped, isOpeningSource {
        // Stopped while still connecting, or waiting for a stream's first bytes: nothing was
        // heard, and nothing went wrong.
        continuation.yield(transcript.result(isFinal: true))
        continuation.finish()
        return
      }
      continuation.finish(throwing: SpeechClient.Failure(live: error))
    }
  }
}

/// How much audio a task has decoded, reported in its results: with every result, and, when the
/// request asks for partial results, for inputs that end (files) at least every
/// ``reportInterval`` of audio, so a host can show progress and cut a file by audio time.
private struct AudioPosition {
  /// Audio time between progress-only results.
  static let reportInterval: TimeInterval = 0.25

  let total: TimeInterval?
  let recordedSampleRate: Int?
  private var samples = 0
  private var reportedSamples = 0

  init(total: TimeInterval?, recordedSampleRate: Int?) {
    self.total = total
    self.recordedSampleRate = recordedSampleRate
  }

  var isBelowRecommendedSampleRate: Bool {
    recordedSampleRate.map { $0 < RecognitionProgress.recommendedSampleRate } ?? false
  }

  mutating func advance(by count: Int) {
    samples += count
  }

  /// Whether an input with an end has decoded ``reportInterval`` since the last report.
  var isDueForReport: Bool {
    total != nil
      && Double(samples - reportedSamples)
        >= Self.reportInterval * Double(RecognitionAudio.sampleRate)
  }

  mutating func report() -> RecognitionProgress {
    reportedSamples = samples
    let decoded = Double(samples) / Double(RecognitionAudio.sampleRate)
    return RecognitionProgress(
      audioDuration: decoded, totalAudioDuration: total.map { max($0, decoded) },
      recordedSampleRate: recordedSampleRate)
  }
}
