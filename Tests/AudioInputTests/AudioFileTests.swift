import Foundation
import LiveTestSupport
import Testing

@testable import AudioInput

@Suite(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
struct AudioFileTests {
  @Test func wavOf16kHzMonoGivesTheSamplesOfTheRawFile() throws {
    let directory = try TemporaryDirectory()
    let wav = directory.file("goforward.wav")
    try soxConvertGoForward(to: wav)
    let fromWAV = readAll(try AudioFile(url: wav))
    let fromRaw = readAll(try RawAudioFile(url: SpeechTestData.goForward))
    #expect(fromWAV.failure == nil)
    #expect(fromRaw.failure == nil)
    #expect(fromWAV.samples == (try goForwardSamples()))
    #expect(fromRaw.samples == fromWAV.samples)
  }

  @Test(arguments: [("wav", 32), ("wav", 64), ("caf", 32)])
  func floatFilesGiveTheSamplesOfTheRawFile(format: String, bits: Int) throws {
    let directory = try TemporaryDirectory()
    let float = directory.file("goforward-float\(bits).\(format)")
    try soxConvertGoForward(to: float, format: ["-e", "floating-point", "-b", "\(bits)"])
    let outcome = readAll(try AudioFile(url: float))
    #expect(outcome.failure == nil)
    #expect(outcome.samples == (try goForwardSamples()))
  }

  @Test func floatSamplesBeyondFullScaleAreClippedAndNaNIsSilence() {
    #expect(AudioFile.sample(0.5) == 16_384)
    #expect(AudioFile.sample(-1) == -32_768)
    #expect(AudioFile.sample(3) == 32_767)
    #expect(AudioFile.sample(-7e30) == -32_768)
    #expect(AudioFile.sample(.nan) == 0)
    #expect(AudioFile.sample(.infinity) == 0)
  }

  @Test func chunksAreAtMost2048Samples() throws {
    let file = try RawAudioFile(url: SpeechTestData.goForward)
    var sizes: [Int] = []
    while let chunk = try file.read() { sizes.append(chunk.count) }
    #expect(sizes.dropLast().allSatisfy { $0 == 2048 })
    #expect((sizes.last ?? 0) <= 2048)
  }

  @Test func stereo44kHzIsConvertedTo16kHzMonoOfTheSameLength() throws {
    let directory = try TemporaryDirectory()
    let converted = directory.file("goforward-44k-stereo.flac")
    try soxConvertGoForward(to: converted, format: ["-r", "44100", "-c", "2"])
    let outcome = readAll(try AudioFile(url: converted))
    let original = try goForwardSamples()
    #expect(outcome.failure == nil)
    #expect(abs(outcome.samples.count - original.count) <= 16)
  }

  @Test func truncatedFileDeliversItsSamplesThenFailsAsTruncated() throws {
    let directory = try TemporaryDirectory()
    let whole = directory.file("whole.wav")
    let truncated = directory.file("truncated.wav")
    try soxConvertGoForward(to: whole)
    let data = try Data(contentsOf: whole)
    try data.prefix(data.count * 2 / 3).write(to: truncated)

    let outcome = readAll(try AudioFile(url: truncated))
    guard case .fileUnreadable(let path, let reason) = outcome.failure else {
      Issue.record("expected fileUnreadable, got \(String(describing: outcome.failure))")
      return
    }
    #expect(path == truncated.path)
    #expect(reason.contains("truncated"))
    #expect(outcome.samples.count > (try goForwardSamples()).count / 2)
  }

  @Test func nonAudioFileIsUnreadableAtOnce() throws {
    let directory = try TemporaryDirectory()
    let text = directory.file("notes.wav")
    try Data("these are not samples\n".utf8).write(to: text)
    #expect(
      throws: AudioInputFailure.fileUnreadable(path: text.path, reason: "Format not recognised.")
    ) {
      try AudioFile(url: text)
    }
  }

  /// A 16-bit mono WAV file whose header declares `rate`, with a second of silence at 16 kHz.
  static func wav(declaring rate: UInt32) -> Data {
    func le(_ value: UInt32, _ count: Int) -> [UInt8] {
      (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }
    let samples = 16_000
    var bytes: [UInt8] = Array("RIFF".utf8) + le(UInt32(36 + 2 * samples), 4) + Array("WAVE".utf8)
    bytes += Array("fmt ".utf8) + le(16, 4) + le(1, 2) + le(1, 2) + le(rate, 4)
    bytes += le(rate &* 2, 4) + le(2, 2) + le(16, 2)
    bytes +=
      Array("data".utf8) + le(UInt32(2 * samples), 4) + [UInt8](repeating: 0, count: 2 * samples)
    return Data(bytes)
  }

  @Test(arguments: [(0, "is 0 Hz"), (1, "is 1 Hz"), (50, "is 50 Hz"), (5_000_000, "is 5000000 Hz")])
  func aSampleRateNoConverterTakesSaysSo(rate: UInt32, said: String) throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("odd.wav")
    try Self.wav(declaring: rate).write(to: file)
    #expect(AudioFile.declaredWAVSampleRate(at: file.path) == rate)
    do {
      let source = try AudioFile(url: file)
      while try source.read() != nil {}
      Issue.record("a \(rate) Hz file was read")
    } catch {
      guard case let .fileUnreadable(path, reason) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(path == file.path)
      #expect(reason.hasPrefix("its sample rate \(said), which cannot be converted"), "\(reason)")
      #expect(reason.contains("sox"))
    }
  }

  @Test func theLowestAndHighestConvertibleRatesAreRead() throws {
    let directory = try TemporaryDirectory()
    for rate: UInt32 in [63, 4_096_000] {
      let file = directory.file("edge-\(rate).wav")
      try Self.wav(declaring: rate).write(to: file)
      let source = try AudioFile(url: file)
      var count = 0
      while let samples = try source.read() { count += samples.count }
      #expect(source.recordedSampleRate == Int(rate))
      #expect(count > 0)
    }
  }

  @Test func directoryIsUnreadableBecauseItIsADirectory() throws {
    let directory = try TemporaryDirectory()
    let sources: [(URL) throws -> any SampleSource] = [
      { try AudioFile(url: $0) }, { try RawAudioFile(url: $0) },
    ]
    for open in sources {
      #expect(
        throws: AudioInputFailure.fileUnreadable(
          path: directory.url.path, reason: "it is a directory")
      ) {
        try open(directory.url)
      }
    }
  }

  @Test func missingFileIsUnreadable() throws {
    for open in [{ try AudioFile(url: $0) }, { try RawAudioFile(url: $0) }]
      as [(URL) throws -> any SampleSource]
    {
      let error = #expect(throws: AudioInputFailure.self) {
        try open(URL(fileURLWithPath: "/nonexistent/talk.wav"))
      }
      guard case .fileUnreadable(let path, let reason) = error else {
        Issue.record("expected fileUnreadable, got \(String(describing: error))")
        continue
      }
      #expect(path == "/nonexistent/talk.wav")
      #expect(reason.contains("No such file"))
    }
  }

  @Test func progressGrowsToOne() throws {
    let directory = try TemporaryDirectory()
    let wav = directory.file("goforward-8k.wav")
    try soxConvertGoForward(to: wav, format: ["-r", "8000"])
    let sources: [any SampleSource] = [
      try RawAudioFile(url: SpeechTestData.goForward), try AudioFile(url: wav),
    ]
    for source in sources {
      var fractions: [Double] = []
      while try source.read() != nil { fractions.append(source.progress ?? -1) }
      #expect(fractions.count >= 10)
      #expect(fractions == fractions.sorted())
      #expect(fractions.last == 1)
    }
  }
}
