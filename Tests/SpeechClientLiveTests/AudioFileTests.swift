import ConcurrencyExtras
import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

extension LiveTests {
  @Suite(.enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
  struct AudioFileTests {
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

    @Test func wavOf16kHzMonoGivesTheSameResultAsTheRawSamples() async throws {
      let directory = try TemporaryDirectory()
      let wav = directory.file("goforward.wav")
      try soxConvertGoForward(to: wav)
      let fromWAV = await transcribe(.file(wav))
      let fromRaw = await transcribe(.rawFile(TestData.goForward))
      #expect(fromWAV.last == fromRaw.last)
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

    @Test func nonAudioFileIsUnreadableAtOnce() async throws {
      let directory = try TemporaryDirectory()
      let text = directory.file("notes.wav")
      try Data("these are not samples\n".utf8).write(to: text)

      let outcome = await transcribe(.file(text))
      #expect(outcome.results.isEmpty)
      #expect(
        outcome.failure
          == .fileUnreadable(path: text.path, reason: "Format not recognised."))
    }

    @Test func missingFileIsUnreadable() async throws {
      let outcome = await transcribe(.file(URL(fileURLWithPath: "/nonexistent/talk.wav")))
      guard case .fileUnreadable(let path, let reason) = outcome.failure else {
        Issue.record("expected fileUnreadable, got \(String(describing: outcome.error))")
        return
      }
      #expect(path == "/nonexistent/talk.wav")
      #expect(reason.contains("No such file"))

      let raw = await transcribe(.rawFile(URL(fileURLWithPath: "/nonexistent/talk.raw")))
      guard case .fileUnreadable(_, let rawReason) = raw.failure else {
        Issue.record("expected fileUnreadable, got \(String(describing: raw.error))")
        return
      }
      #expect(rawReason.contains("No such file"))
    }

    @Test func progressGrowsToOne() async throws {
      let fractions = LockIsolated<[Double]>([])
      let outcome = await transcribe(
        .rawFile(TestData.goForward),
        configuration: LiveSpeechConfiguration(progress: { fraction in
          fractions.withValue { $0.append(fraction) }
        }))
      #expect(outcome.error == nil)
      #expect(fractions.value.count >= 10)
      #expect(fractions.value == fractions.value.sorted())
      #expect(fractions.value.last == 1)
    }

    @Test func resamplerKeepsTheDurationOfTheAudio() throws {
      let resampler = try Resampler(ratio: 16_000 / 44_100)
      var produced = 0
      for index in 0..<10 {
        produced += try resampler.process(
          [Float](repeating: 0.1, count: 4410), isLast: index == 9
        ).count
      }
      #expect(abs(produced - 16_000) <= 2)
    }
  }
}
