import Foundation
import Recognition

/// Each transcription a recognizer makes, written to standard error with what it was for, the
/// audio it heard and the CPU and wall-clock time it took (`TRANSCRIBE_LOG_DECODES=1`): where a
/// server's cores go, by kind of look (`Benchmarks/partials/decodes.sh` sums a run's).
///
/// ```
/// transcribe: decode judge-late 4.820 s of audio: 0.191 s CPU, 0.643 s wall
/// ```
///
/// The CPU time is the calling thread's: all of it where ONNX Runtime runs a transcription on
/// the thread that asks for it (the server's streams and files, one thread each), less where it
/// adds threads of its own (a microphone's recognizer uses two).
enum DecodeLog {
  /// What a transcription is for.
  enum Look: String, Sendable, CaseIterable {
    /// The words so far while speech goes on.
    case partial
    /// Early in a pause, before sentence endpointing needs it (its early look).
    case early
    /// In a pause, what the final words will hear, before the pause is long enough.
    case pause
    /// Sentence endpointing's early look, made when the judgement is due.
    case judgeEarly = "judge-early"
    /// What the final words hear, made when the judgement is due.
    case judgeLate = "judge-late"
    /// An utterance's final words, when no look made them before.
    case final
    /// A piece of a file, in one transcription (a piece too long for one, or cut into sentences
    /// by another engine, goes through the live looks instead, and is logged as they are).
    case piece
  }

  /// Where lines go: standard error with `TRANSCRIBE_LOG_DECODES=1`, else nowhere.
  static let standardError: (@Sendable (String) -> Void)? = {
    guard ProcessInfo.processInfo.environment["TRANSCRIBE_LOG_DECODES"] == "1" else { return nil }
    return { line in FileHandle.standardError.write(Data(line.utf8)) }
  }()

  /// Runs `transcribe` on `samples` samples for `look`, and writes its line to `log` if there
  /// is one.
  static func measure<T, Failure: Error>(
    _ look: Look, samples: Int, log: ((String) -> Void)? = standardError,
    _ transcribe: () throws(Failure) -> T
  ) throws(Failure) -> T {
    guard let log else { return try transcribe() }
    let cpu = threadCPUSeconds()
    let started = ContinuousClock.now
    let result = try transcribe()
    let elapsed = ContinuousClock.now - started
    log(
      line(
        look, audioSeconds: Double(samples) / Double(RecognitionAudio.sampleRate),
        cpuSeconds: threadCPUSeconds() - cpu, wallSeconds: elapsed.seconds))
    return result
  }

  /// One log line.
  static func line(
    _ look: Look, audioSeconds: Double, cpuSeconds: Double, wallSeconds: Double
  ) -> String {
    "transcribe: decode \(look.rawValue) "
      + String(
        format: "%.3f s of audio: %.3f s CPU, %.3f s wall\n", audioSeconds, cpuSeconds,
        wallSeconds)
  }

  /// The CPU time the calling thread has used, in seconds.
  static func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
