import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

extension LiveTests {
  @Suite(.enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
  struct FileRecognitionTests {
    @Test func rawGoForwardDecodesToGoForwardTenMeters() async throws {
      let outcome = await transcribe(.rawFile(TestData.goForward))
      #expect(outcome.error == nil)
      #expect(outcome.text == "go forward ten meters")
      #expect(outcome.last?.isFinal == true)
      #expect(outcome.results.dropLast().allSatisfy { !$0.isFinal })
    }

    @Test func finalWordsHaveTimesFromFramesConfidenceAndAlternatives() async throws {
      let outcome = await transcribe(.rawFile(TestData.goForward))
      let segments = try #require(outcome.last?.bestTranscription.segments)
      try #require(segments.map(\.substring) == ["go", "forward", "ten", "meters"])
      // "go" spans frames 46...63 at 100 frames per second.
      #expect(abs(segments[0].timestamp - 0.46) < 0.05)
      #expect(abs(segments[0].duration - 0.18) < 0.05)
      for (earlier, later) in zip(segments, segments.dropFirst()) {
        #expect(later.timestamp >= earlier.timestamp + earlier.duration - 0.011)
      }
      #expect(segments.allSatisfy { $0.confidence > 0 && $0.confidence <= 1 })
      #expect(segments[0].confidence > 0.9)
      #expect(segments.contains { !$0.alternativeSubstrings.isEmpty })
      let text = try #require(outcome.text)
      for segment in segments {
        let range = segment.substringRange
        let start = text.utf16.index(text.utf16.startIndex, offsetBy: range.location)
        let end = text.utf16.index(start, offsetBy: range.length)
        #expect(String(text[start..<end]) == segment.substring)
      }
    }

    @Test func partialResultsArriveWhileSpeakingWithZeroConfidence() async throws {
      let outcome = await transcribe(.rawFile(TestData.goForward))
      let partials = outcome.results.filter {
        !$0.isFinal && $0.bestTranscription.segments.contains { $0.confidence == 0 }
      }
      #expect(partials.count >= 3)
      #expect(
        partials.first?.bestTranscription.formattedString.hasPrefix("go") == true,
        "\(partials.map(\.bestTranscription.formattedString))")
    }

    @Test func partialResultsCanBeTurnedOff() async throws {
      let client = SpeechClient.live()
      let outcome = await collect(
        await client.startTask(
          SpeechRecognitionRequest(
            source: .rawFile(TestData.goForward), shouldReportPartialResults: false)))
      #expect(
        outcome.results.map(\.bestTranscription.formattedString) == [
          "go forward ten meters", "go forward ten meters",
        ])
    }

    @Test func laterUtterancesKeepEarlierOnesAndTheirTimesCountFromTheStart() async throws {
      let directory = try TemporaryDirectory()
      let twice = directory.file("twice.wav")
      // goforward, 3 s of silence, goforward again, 3 s of silence.
      try soxConvertGoForward(to: twice, effects: ["pad", "0", "3", "repeat", "1"])
      let outcome = await transcribe(.file(twice))
      #expect(outcome.text == "go forward ten meters go forward ten meters")
      let segments = try #require(outcome.last?.bestTranscription.segments)
      try #require(segments.count == 8)
      // The second "go" starts 2.786 s + 3 s after the first.
      #expect(abs(segments[4].timestamp - segments[0].timestamp - 5.786) < 0.1)
      #expect(
        segments.map(\.endsUtterance) == [false, false, false, true, false, false, false, true])
      let utteranceResults = outcome.results.filter {
        !$0.isFinal && $0.bestTranscription.segments.allSatisfy { $0.confidence > 0 }
      }
      #expect(
        utteranceResults.map(\.bestTranscription.formattedString).contains(
          "go forward ten meters"))
      // While the second utterance is spoken, the first stays in front of its partial words.
      #expect(
        outcome.results.contains {
          $0.bestTranscription.formattedString.hasPrefix("go forward ten meters go")
            && $0.bestTranscription.segments.last?.confidence == 0
        })
    }

    @Test func cardsDecodeWithTheirJSGFGrammar() async throws {
      let grammar = TestData.cards.appendingPathComponent("cards.gram")
      // cards.transcription, except that 001.wav starts with a sound that Debian's en-us model hears
      // as "five" (pocketsphinx_continuous -infile 001.wav -jsgf cards.gram says so too).
      let expected = [
        "five ten of clubs", "four queen of clubs", "seven of clubs", "five five",
        "eight of spades four of clubs seven of hearts",
      ]
      for (index, words) in expected.enumerated() {
        let file = TestData.cards.appendingPathComponent(String(format: "%03d.wav", index + 1))
        let outcome = await transcribe(.file(file), model: .grammar(grammar))
        #expect(outcome.error == nil)
        #expect(outcome.text == words, "\(file.lastPathComponent)")
      }
    }

    @Test func keyphraseIsSpotted() async throws {
      let outcome = await transcribe(.rawFile(TestData.goForward), model: .keyphrase("forward"))
      #expect(outcome.error == nil)
      #expect(outcome.text?.contains("forward") == true)
    }

    @Test func missingGrammarIsNotFoundNamingIt() async throws {
      let outcome = await transcribe(
        .rawFile(TestData.goForward), model: .grammar(URL(fileURLWithPath: "/nonexistent.gram")))
      #expect(outcome.failure == .modelFileNotFound(.grammar, path: "/nonexistent.gram"))
      #expect(outcome.results.isEmpty)
    }

    @Test func severalDecodersRunAtOnce() async throws {
      let outcomes = await withTaskGroup(of: Outcome.self) { group in
        for _ in 0..<3 {
          group.addTask { await transcribe(.rawFile(TestData.goForward)) }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
      #expect(outcomes.map(\.text) == Array(repeating: "go forward ten meters", count: 3))
    }
  }
}
