import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import Moonshine

/// Figures for the engine's notes, printed rather than checked; run with `MOONSHINE_BENCHMARK`
/// set to `rtf` (transcription speed), `streams=N` (N live streams at once, for peak RSS under
/// `/usr/bin/time -v`) or `latency=N` (final results after a pause, N streams fed in real time).
/// `MOONSHINE_BENCHMARK_THREADS` sets the threads per run for `rtf`.
@Suite(.enabled(if: isModelInstalled && benchmark != nil, "set MOONSHINE_BENCHMARK to run"))
struct BenchmarkTests {
  @Test(.enabled(if: benchmark == "rtf"))
  func transcriptionSpeed() throws {
    var configuration = installedConfiguration
    if let threads = ProcessInfo.processInfo.environment["MOONSHINE_BENCHMARK_THREADS"] {
      configuration.threadsPerRun = Int(threads) ?? 1
    }
    let model = try MoonshineModel.shared(configuration)
    let clips = try libriVoxClips()
    // The five clips twice over, as one transcription each (49.5 s of audio).
    var audio = 0.0
    var encoder = 0.0
    var decoder = 0.0
    var steps = 0
    var tokens = 0
    for clip in clips + clips {
      let samples = floats(clip.samples)
      let transcript = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
      audio += Double(samples.count) / 16_000
      encoder += transcript.encoderSeconds
      decoder += transcript.decoderSeconds
      steps += transcript.decoderSteps
      tokens += transcript.tokens.count
    }
    print(
      String(
        format:
          "moonshine rtf: %.1f s of audio, %d tokens; encoder %.2f s (%.0f ms per s of audio), "
          + "decoder %.2f s (%.1f ms per step), RTF %.3f (threads per run %d, %@)",
        audio, tokens, encoder, 1000 * encoder / audio, decoder, 1000 * decoder / Double(steps),
        (encoder + decoder) / audio, configuration.threadsPerRun,
        model.decoderFile.lastPathComponent))
  }

  @Test(.enabled(if: benchmark?.hasPrefix("streams=") == true))
  func liveStreams() throws {
    let count = Int(benchmark!.dropFirst("streams=".count)) ?? 1
    let clips = try libriVoxClips()
    let pause = [Int16](repeating: 0, count: 12_800)
    let audio = (clips + clips).flatMap { $0.samples + pause }
    let started = ContinuousClock.now
    let texts = Results()
    DispatchQueue.concurrentPerform(iterations: count) { index in
      texts.add(
        index,
        Result {
          let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
          return try stream(audio, to: recognizer, chunk: 800)
        })
    }
    let elapsed = (ContinuousClock.now - started).seconds
    var errors = 0
    var words = 0
    let reference = normalizedWords((clips + clips).map(\.reference).joined(separator: " "))
    for index in 0..<count {
      let events = try texts.values(index)[0].get()
      errors += editDistance(normalizedWords(finalText(events)), reference)
      words += reference.count
    }
    print(
      String(
        format: "moonshine streams=%d: %.1f s of audio each in %.1f s, WER %.3f", count,
        Double(audio.count) / 16_000, elapsed, Double(errors) / Double(words)))
  }

  @Test(.enabled(if: benchmark?.hasPrefix("latency") == true))
  func finalLatency() throws {
    // `latency=N`: N streams at once, each fed in real time.
    let count = Int(benchmark!.dropFirst("latency=".count)) ?? 1
    let clips = try libriVoxClips()
    let latencies = Results()
    DispatchQueue.concurrentPerform(iterations: count) { index in
      latencies.add(index, Result { try Self.latencies(clips.map(\.samples)) })
    }
    var all: [Double] = []
    for index in 0..<count {
      for case let .utterance(words) in try latencies.values(index)[0].get() {
        all += words.map(\.duration)
      }
    }
    all.sort()
    let p95 = all[min(all.count - 1, Int(Double(all.count) * 0.95))]
    print(
      "moonshine latency (\(count) stream(s) in real time): final result after the end of speech: "
        + all.map { String(format: "%.2f", $0) }.joined(separator: " ")
        + String(format: " s; p95 %.2f s", p95))
  }

  /// Feeds each clip and a second of silence in real time, 50 ms at a time, and returns, as the
  /// durations of fake words, how long after the end of speech each final result came.
  static func latencies(_ clips: [[Int16]]) throws -> [RecognitionEvent] {
    let recognizer = try MoonshineRecognizer(configuration: installedConfiguration)
    let chunk = 800
    var results: [RecognizedWord] = []
    for clip in clips {
      let samples = clip + [Int16](repeating: 0, count: 16_000)
      try recognizer.reset()
      let start = ContinuousClock.now
      for offset in stride(from: 0, to: samples.count, by: chunk) {
        // A chunk is handed over when its last sample would have been heard.
        let end = min(offset + chunk, samples.count)
        let due = start + .milliseconds(end / 16)
        if ContinuousClock.now < due { Thread.sleep(forTimeInterval: (due - .now).seconds) }
        let piece = Array(samples[offset..<end])
        let events = try piece.withUnsafeBufferPointer { try recognizer.process($0) }
        for case let .utterance(words) in events {
          let speechEnd = words.last.map { $0.timestamp + $0.duration } ?? 0
          let latency = (ContinuousClock.now - start).seconds - speechEnd
          results.append(RecognizedWord(text: "", timestamp: 0, duration: latency, confidence: 0))
        }
      }
    }
    return [.utterance(results)]
  }
}

/// What `MOONSHINE_BENCHMARK` asks for.
let benchmark = ProcessInfo.processInfo.environment["MOONSHINE_BENCHMARK"]
