import ConcurrencyExtras
import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

/// The LibriVox clips of pocketsphinx-testdata, in the order of its `fileids`.
enum LibriVox {
  static let directory = SpeechTestData.directory.appendingPathComponent("librivox")
  static let clips = [
    "sense_and_sensibility_01_austen_64kb-0870", "sense_and_sensibility_01_austen_64kb-0880",
    "sense_and_sensibility_01_austen_64kb-0890", "sense_and_sensibility_01_austen_64kb-0920",
    "sense_and_sensibility_01_austen_64kb-0930",
  ].map { directory.appendingPathComponent("\($0).wav") }
}

extension LiveTests {
  @Suite(.enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
  struct FileRecognitionBatchTests {
    /// Transcribes `requests` in one batch with `jobs` decoders, one task after another as the
    /// command-line tool does; returns each file's outcome.
    func transcribeBatch(_ requests: [SpeechRecognitionRequest], jobs: Int) async -> [Outcome] {
      var configuration = LiveSpeechConfiguration()
      configuration.jobs = jobs
      let batch = FileRecognitionBatch(requests, configuration: configuration)
      var outcomes: [Outcome] = []
      for (index, request) in requests.enumerated() {
        outcomes.append(await collect(await batch.client(at: index).startTask(request)))
      }
      return outcomes
    }

    /// The final words of an outcome, with their times rounded to 10 ms.
    func timedWords(_ outcome: Outcome) -> [String] {
      (outcome.last.map { Array($0.bestTranscription.segments) } ?? []).map {
        "\($0.substring)@\(Int(($0.timestamp * 100).rounded()))"
      }
    }

    @Test func aLongFileDecodesToTheSameWordsAndTimesWithTwoJobsAsWithOne() async throws {
      let directory = try TemporaryDirectory()
      let long = directory.file("librivox.wav")
      // All five clips back to back: 24.7 s, several utterances and pauses.
      try runSox(LibriVox.clips.map(\.path) + [long.path])
      let request = SpeechRecognitionRequest(source: .file(long))
      let one = await transcribeBatch([request], jobs: 1)[0]
      let two = await transcribeBatch([request], jobs: 2)[0]
      #expect(one.error == nil && two.error == nil)
      #expect(one.last?.isFinal == true && two.last?.isFinal == true)
      let words = try #require(one.text?.split(separator: " "))
      #expect(words.count > 60)
      #expect(two.text == one.text)
      #expect(timedWords(two) == timedWords(one))
      // Word times count from the start of the file: the last words are near its end.
      let last = try #require(two.last?.bestTranscription.segments.last)
      #expect(last.timestamp > 22 && last.timestamp < 24.8)
      // Results arrive in order: each result's text extends the one before.
      for (earlier, later) in zip(two.results, two.results.dropFirst()) {
        let finished = earlier.bestTranscription.segments.filter { $0.confidence > 0 }
        #expect(
          Array(later.bestTranscription.segments.prefix(finished.count)).map(\.substring)
            == finished.map(\.substring))
      }
    }

    @Test func aBatchGivesTheSameFilesInTheSameOrderWithTwoJobsAsWithOne() async throws {
      let requests =
        [SpeechRecognitionRequest(source: .rawFile(TestData.goForward))]
        + LibriVox.clips.map { SpeechRecognitionRequest(source: .file($0)) }
      let one = await transcribeBatch(requests, jobs: 1)
      let two = await transcribeBatch(requests, jobs: 2)
      #expect(one.map(\.text) == two.map(\.text))
      #expect(one.map(timedWords) == two.map(timedWords))
      #expect(one[0].text == "go forward ten meters")
      #expect(two.allSatisfy { $0.error == nil && $0.last?.isFinal == true })
      // Each file's words are its own: the second clip is "he was not an ill disposed young man".
      #expect(two[2].text?.hasPrefix("he was not") == true)
    }

    @Test func aFileOfTheBatchThatCannotBeReadFailsAloneAndInItsPlace() async throws {
      let requests = [
        SpeechRecognitionRequest(source: .rawFile(TestData.goForward)),
        SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/nonexistent/talk.wav"))),
        SpeechRecognitionRequest(source: .rawFile(TestData.goForward)),
      ]
      let outcomes = await transcribeBatch(requests, jobs: 2)
      #expect(outcomes[0].text == "go forward ten meters")
      guard case .fileUnreadable = outcomes[1].failure else {
        Issue.record("expected fileUnreadable, got \(String(describing: outcomes[1].error))")
        return
      }
      #expect(outcomes[2].text == "go forward ten meters")
    }

    @Test func finishingAFileTaskEndsItWithTheWordsSoFar() async throws {
      let directory = try TemporaryDirectory()
      let long = directory.file("long.wav")
      try runSox(LibriVox.clips.map(\.path) + [long.path])
      let client = SpeechClient.live()
      let stream = await client.startTask(SpeechRecognitionRequest(source: .file(long)))
      await client.finishTask()
      let outcome = await collect(stream)
      #expect(outcome.error == nil)
      #expect(outcome.last?.isFinal == true)
      #expect(outcome.results.filter(\.isFinal).count == 1)
    }

    @Test func progressTravelsInResultsEveryQuarterSecondOfAudioUpToTheWholeFile() async throws {
      let outcome = await transcribe(.file(LibriVox.clips[0]))
      #expect(outcome.error == nil)
      let positions = outcome.results.compactMap(\.progress?.audioDuration)
      #expect(positions.count == outcome.results.count)
      #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 <= $1 })
      #expect(zip(positions, positions.dropFirst()).allSatisfy { $1 - $0 <= 0.25 + 1e-9 })
      let last = try #require(outcome.last?.progress)
      #expect(last.fractionCompleted == 1)
      #expect(last.recordedSampleRate == 16000)
    }

    @Test func stoppingAtAnAudioTimeKeepsNoWordsMuchBeyondIt() async throws {
      let directory = try TemporaryDirectory()
      let long = directory.file("long.wav")
      // The clips with a second's pause after each: a file is cut only at pauses the
      // voice-activity detector hears, so each sentence is a piece of its own.
      let pause = directory.file("pause.wav")
      try runSox(["-n", "-r", "16000", "-c", "1", "-b", "16", pause.path, "trim", "0", "1"])
      try runSox(LibriVox.clips.flatMap { [$0.path, pause.path] } + [long.path])
      var configuration = LiveSpeechConfiguration()
      configuration.jobs = 2
      let client = SpeechClient.live(configuration)
      let stream = await client.startTask(SpeechRecognitionRequest(source: .file(long)))
      var results: [SpeechRecognitionResult] = []
      // As the feature cuts a file at --duration: stop at the first result 6 s or more in.
      for try await result in stream {
        results.append(result)
        if let position = result.progress?.audioDuration, position >= 6, !result.isFinal {
          await client.finishTask()
        }
      }
      let final = try #require(results.last)
      #expect(final.isFinal)
      #expect(results.filter(\.isFinal).count == 1)
      let words = Array(final.bestTranscription.segments)
      #expect(!words.isEmpty)
      #expect(words.allSatisfy { $0.timestamp <= 6.5 })
      #expect((final.progress?.audioDuration ?? .infinity) <= 6.5)
    }

    @Test func onlyRegularOrMissingFilesGoToThePoolAndPipesStream() throws {
      let directory = try TemporaryDirectory()
      let fifo = directory.file("audio.fifo")
      #expect(mkfifo(fifo.path, 0o600) == 0)
      #expect(SpeechRecognitionRequest.AudioSource.rawFile(TestData.goForward).isFileSource)
      #expect(SpeechRecognitionRequest.AudioSource.file(directory.file("missing.wav")).isFileSource)
      #expect(!SpeechRecognitionRequest.AudioSource.file(fifo).isFileSource)
      #expect(!SpeechRecognitionRequest.AudioSource.standardInput(raw: true).isFileSource)
      #expect(!SpeechRecognitionRequest.AudioSource.microphone.isFileSource)
    }
  }
}

extension LiveTests.FileRecognitionBatchTests {
  @Test func progressCountsFinishedFilesAndTheAudioOfAllOfThem() async throws {
    let requests = LibriVox.clips.prefix(2).map { SpeechRecognitionRequest(source: .file($0)) }
    var configuration = LiveSpeechConfiguration()
    configuration.jobs = 2
    let batch = FileRecognitionBatch(requests, configuration: configuration)
    #expect(batch.progress.fileCount == 2)
    for (index, request) in requests.enumerated() {
      _ = await collect(await batch.client(at: index).startTask(request))
    }
    let progress = batch.progress
    // 0870 is 7.10 s long, 0880 2.99 s.
    let total = try #require(progress.totalAudio)
    #expect(abs(total - 10.09) < 0.01)
    #expect(progress.finishedFiles == 2)
    #expect(abs(progress.decodedAudio - total) < 0.01)
    #expect(progress.fractionCompleted == 1)
  }
}
