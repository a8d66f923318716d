import ConcurrencyExtras
import Foundation
import LiveTestSupport
import Testing

@testable import AudioInput

/// FIFOs stand in for pipes and standard input: they take the same path (a stream that may
/// stall, read through libsndfile's virtual I/O or polling reads).
@Suite(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
struct StreamTests {
  /// A FIFO in a temporary directory.
  static func fifo(in directory: TemporaryDirectory) throws -> URL {
    let url = directory.file("stream")
    #expect(mkfifo(url.path, 0o600) == 0)
    return url
  }

  /// Opens the FIFO for writing on a thread of its own, writes `data`, and keeps it open (a
  /// writer gone quiet) until `release` is raised; then closes it.
  static func write(_ data: Data, to fifo: URL, keepOpenUntil release: StopSignal) {
    let thread = Thread {
      let descriptor = open(fifo.path, O_WRONLY)
      guard descriptor >= 0 else { return }
      data.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
          let count = Foundation.write(descriptor, base + offset, bytes.count - offset)
          if count <= 0 { break }
          offset += count
        }
      }
      while !release.isStopped { usleep(10_000) }
      close(descriptor)
    }
    thread.start()
  }

  /// Raises `signal` after `delay` on another thread.
  static func stop(_ signal: StopSignal, after delay: Duration) {
    Thread {
      Thread.sleep(
        forTimeInterval: Double(delay.components.seconds)
          + Double(delay.components.attoseconds) / 1e18)
      signal.stop()
    }.start()
  }

  @Test(arguments: ["wav", "flac"])
  func audioFileStreamedThroughAFIFOGivesTheSamplesOfTheFile(format: String) throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("goforward.\(format)")
    try soxConvertGoForward(to: file)
    let fifo = try Self.fifo(in: directory)
    let release = StopSignal()
    release.stop()  // the writer closes at once: the stream ends
    Self.write(try Data(contentsOf: file), to: fifo, keepOpenUntil: release)
    let outcome = readAll(try AudioFile(url: fifo))
    #expect(outcome.failure == nil)
    #expect(outcome.samples == (try goForwardSamples()))
  }

  @Test func streamedWAVHasNoTotalDurationWhateverItsHeaderDeclares() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("goforward.wav")
    try soxConvertGoForward(to: file)
    // A writer that cannot seek back declares the largest sizes, as `sox … -t wav -` does.
    var data = try Data(contentsOf: file)
    let dataChunk = try #require(data.firstRange(of: Data("data".utf8)))
    for offset in [4, dataChunk.upperBound] {
      data.replaceSubrange(offset..<offset + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
    }
    let fifo = try Self.fifo(in: directory)
    let release = StopSignal()
    release.stop()
    Self.write(data, to: fifo, keepOpenUntil: release)
    let source = try AudioFile(url: fifo)
    #expect(source.totalDuration == nil)
    #expect(source.progress == nil)
    let outcome = readAll(source)
    #expect(outcome.failure == nil)
    #expect(outcome.samples == (try goForwardSamples()))
  }

  @Test func rawSamplesStreamedThroughAFIFOAreReadWhole() throws {
    let directory = try TemporaryDirectory()
    let fifo = try Self.fifo(in: directory)
    let release = StopSignal()
    release.stop()
    Self.write(try Data(contentsOf: SpeechTestData.goForward), to: fifo, keepOpenUntil: release)
    let file = try RawAudioFile(url: fifo)
    #expect(file.progress == nil)
    let outcome = readAll(file)
    #expect(outcome.failure == nil)
    #expect(outcome.samples == (try goForwardSamples()))
  }

  @Test(arguments: [false, true])
  func stalledStreamEndsSoonAfterTheStopWithAllThatArrived(raw: Bool) throws {
    let directory = try TemporaryDirectory()
    let fifo = try Self.fifo(in: directory)
    let wav = directory.file("goforward.wav")
    try soxConvertGoForward(to: wav)
    let release = StopSignal()
    defer { release.stop() }
    let data = raw ? try Data(contentsOf: SpeechTestData.goForward) : try Data(contentsOf: wav)
    // Half the audio, then silence from a writer that keeps the FIFO open.
    Self.write(data.prefix(data.count / 2), to: fifo, keepOpenUntil: release)
    let stop = StopSignal()
    let source: any SampleSource =
      raw
      ? try RawAudioFile(url: fifo, stopSignal: stop) : try AudioFile(url: fifo, stopSignal: stop)
    Self.stop(stop, after: .seconds(1))
    let start = ContinuousClock.now
    let outcome = readAll(source)
    let waited = ContinuousClock.now - start
    #expect(outcome.failure == nil)
    // Everything that arrived is delivered, nothing more: the stop drains, then ends.
    let headerBytes = raw ? 0 : 44
    #expect(
      outcome.samples == Array(try goForwardSamples().prefix((data.count / 2 - headerBytes) / 2)))
    // The stop comes after 1 s; a read blocked in the kernel would wait for the writer (forever).
    #expect(waited >= .seconds(0.9) && waited < .seconds(2))
  }

  @Test func fifoNobodyOpensEndsWhenStopped() throws {
    let directory = try TemporaryDirectory()
    let fifo = try Self.fifo(in: directory)
    let stop = StopSignal()
    Self.stop(stop, after: .milliseconds(300))
    let start = ContinuousClock.now
    // Opening waits for the header; the stop ends the wait, and there is no audio.
    let error = #expect(throws: AudioInputFailure.self) {
      try AudioFile(url: fifo, stopSignal: stop)
    }
    #expect(ContinuousClock.now - start < .seconds(2))
    guard case .fileUnreadable(let path, _) = error else {
      Issue.record("expected fileUnreadable, got \(String(describing: error))")
      return
    }
    #expect(path == fifo.path)
  }
}
