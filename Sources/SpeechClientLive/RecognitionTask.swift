import AudioInput
import ConcurrencyExtras
import Foundation
import PocketSphinx
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
    let (stream, continuation) = AsyncThrowingStream.makeStream(
      of: SpeechRecognitionResult.self, throwing: (any Error).self)
    continuation.onTermination = { termination in
      if case .cancelled = termination { task.stopSignal.stop(discardingPendingAudio: true) }
    }
    DedicatedThread.start(name: "transcribe.recognition") {
      task.run(request, configuration: configuration, continuation: continuation)
      task.markDone()
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
    configuration: LiveSpeechConfiguration,
    continuation: AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation
  ) {
    let decoderConfiguration = configuration.decoderConfiguration(for: request)
    var transcript = Transcript()
    var decoder: Decoder?
    do {
      try decoderConfiguration.validate()
      // The source opens before the model loads, so server and file problems are reported at
      // once, and the microphone's audio waits in the server's buffer during the load.
      let input = try request.source.open(configuration: configuration, stopSignal: stopSignal)
      let loaded = try Decoder(configuration: decoderConfiguration)
      decoder = loaded
      var progress = ProgressReporter(report: configuration.progress)
      while let samples = try input.read() {
        let events = try samples.withUnsafeBufferPointer { samples throws(SpeechClient.Failure) in
          try loaded.process(samples)
        }
        for event in events {
          transcript.apply(event)
          continuation.yield(transcript.result(isFinal: false))
        }
        progress.update(input.progress)
        if stopSignal.isStopped, !input.drainsWhenStopped { break }
      }
      if let words = try loaded.finish() { transcript.apply(.utterance(words)) }
      progress.update(input.progress.map { _ in 1 })
      continuation.yield(transcript.result(isFinal: true))
      continuation.finish()
    } catch {
      if let decoder {
        if let words = try? decoder.finish() { transcript.apply(.utterance(words)) }
        continuation.yield(transcript.result(isFinal: true))
      } else if stopSignal.isStopped, error.isAudioDeviceProblem {
        // Stopped while still connecting: nothing was heard, and nothing went wrong.
        continuation.yield(transcript.result(isFinal: true))
        continuation.finish()
        return
      }
      continuation.finish(throwing: error)
    }
  }
}

/// Calls a progress callback when the fraction grew by at least a percent.
private struct ProgressReporter {
  let report: (@Sendable (Double) -> Void)?
  private var lastPercent = -1

  init(report: (@Sendable (Double) -> Void)?) {
    self.report = report
  }

  mutating func update(_ fraction: Double?) {
    guard let report, let fraction else { return }
    let percent = Int(fraction * 100)
    guard percent > lastPercent else { return }
    lastPercent = percent
    report(fraction)
  }
}
