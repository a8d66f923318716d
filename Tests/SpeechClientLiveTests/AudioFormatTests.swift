import ConcurrencyExtras
import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

extension LiveTests {
  @Suite(.enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
  struct AudioFormatTests {
    @Test func stereo44kHzConversionGivesTheSameWordsAsThe16kHzOriginal() async throws {
      let directory = try TemporaryDirectory()
      let original = directory.file("goforward.wav")
      let converted = directory.file("goforward-44k-stereo.flac")
      try soxConvertGoForward(to: original)
      try soxConvertGoForward(to: converted, format: ["-r", "44100", "-c", "2"])

      let fromOriginal = await transcribe(.file(original))
      let fromConverted = await transcribe(.file(converted))
      #expect(fromOriginal.text == "go forward ten meters")
      #expect(fromConverted.error == nil)
      #expect(fromConverted.text == fromOriginal.text)
    }

    @Test(arguments: ["ogg", "aiff", "wav"])
    func otherFormatsAndRatesGiveTheSameWords(format: String) async throws {
      let directory = try TemporaryDirectory()
      let converted = directory.file("goforward-48k.\(format)")
      try soxConvertGoForward(to: converted, format: ["-r", "48000"])
      let outcome = await transcribe(.file(converted))
      #expect(outcome.error == nil)
      #expect(outcome.text == "go forward ten meters")
    }

    @Test(arguments: [("wav", 32), ("wav", 64), ("caf", 32)])
    func floatFilesOf16kHzMonoGiveTheWords(format: String, bits: Int) async throws {
      let directory = try TemporaryDirectory()
      let converted = directory.file("goforward-float\(bits).\(format)")
      try soxConvertGoForward(to: converted, format: ["-e", "floating-point", "-b", "\(bits)"])
      let outcome = await transcribe(.file(converted))
      #expect(outcome.error == nil)
      #expect(outcome.text == "go forward ten meters")
    }

    @Test func audioRecordedBelow16kHzIsDecodedAndSaysItsRateFromTheFirstResult() async throws {
      let directory = try TemporaryDirectory()
      let low = directory.file("goforward-8k.wav")
      let normal = directory.file("goforward-16k.wav")
      try soxConvertGoForward(to: low, format: ["-r", "8000"])
      try soxConvertGoForward(to: normal)
      for (file, rate) in [(low, 8000), (normal, 16000)] {
        let outcome = await transcribe(.file(file))
        #expect(outcome.error == nil)
        #expect(outcome.last?.isFinal == true)
        let progress = try #require(outcome.results.first?.progress, "\(file.lastPathComponent)")
        #expect(progress.recordedSampleRate == rate)
        #expect(progress.isBelowRecommendedSampleRate == (rate < 16000))
      }
    }

    @Test func truncatedFileDeliversItsWordsThenFailsAsTruncated() async throws {
      let directory = try TemporaryDirectory()
      let whole = directory.file("whole.wav")
      let truncated = directory.file("truncated.wav")
      try soxConvertGoForward(to: whole)
      let data = try Data(contentsOf: whole)
      try data.prefix(data.count * 2 / 3).write(to: truncated)

      let outcome = await transcribe(.file(truncated))
      guard case .fileUnreadable(let path, let reason) = outcome.failure else {
        Issue.record("expected fileUnreadable, got \(String(describing: outcome.error))")
        return
      }
      #expect(path == truncated.path)
      #expect(reason.contains("truncated"))
      #expect(outcome.last?.isFinal == true)
      #expect(outcome.text?.hasPrefix("go") == true)
    }
  }
}

extension LiveTests.AudioFormatTests {
  @Test func aFilesDeclaredLengthIsReadFromItsHeaderWithoutDecodingIt() throws {
    let directory = try TemporaryDirectory()
    // An hour of silence in a few hundred KB of FLAC (ten hours take sox half a minute to
    // write; the header is read as fast).
    let bomb = directory.file("bomb.flac")
    try runSox(["-n", "-r", "16000", "-c", "1", bomb.path, "trim", "0", "3600"])
    let start = ContinuousClock.now
    #expect(LiveSpeechConfiguration.declaredAudioDuration(of: bomb) == 3_600)
    #expect(ContinuousClock.now - start < .seconds(1))
    let text = directory.file("notes.txt")
    try Data("not audio".utf8).write(to: text)
    #expect(LiveSpeechConfiguration.declaredAudioDuration(of: text) == nil)
  }
}
