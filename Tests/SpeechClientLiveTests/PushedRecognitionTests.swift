import Foundation
import LiveTestSupport
import PocketSphinx
import SpeechClient
import Testing

@testable import AudioInput
@testable import SpeechClientLive

/// Pushed audio (a server's stream) decoded for real on a decoder borrowed from the pool.
extension LiveTests {
  @Suite(.enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
  struct PushedRecognitionTests {
    /// goforward.raw's samples.
    static func goForwardSamples() throws -> [Int16] {
      let data = try Data(contentsOf: TestData.goForward)
      return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Pushes `samples` in 0.2 s chunks, then finishes, and collects the task's results.
    static func recognize(
      _ samples: [Int16], rate: Int = 16_000, model: SpeechRecognitionRequest.Model = .default,
      configuration: LiveSpeechConfiguration = LiveSpeechConfiguration(),
      keptUtterances: Int? = nil
    ) async -> Outcome {
      let audio = PushedAudio(sampleRate: rate)
      let client = SpeechClient.live(configuration)
      var request = SpeechRecognitionRequest(source: .pushed(audio), model: model)
      request.keptUtterances = keptUtterances
      let stream = await client.startTask(request)
      let chunk = rate / 5
      for start in stride(from: 0, to: samples.count, by: chunk) {
        audio.push(Array(samples[start..<min(start + chunk, samples.count)]))
      }
      audio.finish()
      return await collect(stream)
    }

    @Test func pushedSamplesTellWhetherMoreAudioIsAlreadyWaiting() throws {
      // What a recognizer is told before each chunk: audio already waiting makes a partial
      // result stale before anyone sees it.
      let audio = PushedAudio(sampleRate: 16_000)
      let source = try PushedSamples(audio)
      #expect(!source.hasWaitingAudio)
      // More than one read takes.
      audio.push([Int16](repeating: 0, count: PushedSamples.chunkLimit * 2 + 100))
      #expect(source.hasWaitingAudio)
      #expect(try source.read()?.count == PushedSamples.chunkLimit)
      #expect(source.hasWaitingAudio)
      _ = try source.read()
      #expect(try source.read()?.count == 100)
      #expect(!source.hasWaitingAudio)
      // The end is known: the next read returns at once.
      audio.finish()
      #expect(source.hasWaitingAudio)
      #expect(try source.read() == nil)
      #expect(!source.hasWaitingAudio)
    }

    @Test func pushedAudioIsDecodedAndReportsItsPositionInPushedTime() async throws {
      let samples = try Self.goForwardSamples()
      let outcome = await Self.recognize(samples)
      #expect(outcome.error == nil)
      #expect(outcome.text == "go forward ten meters")
      #expect(outcome.last?.isFinal == true)
      let positions = outcome.results.compactMap { $0.progress?.audioDuration }
      #expect(positions.last == Double(samples.count) / 16_000)
      #expect(positions == positions.sorted())
    }

    @Test func aSessionThatKeepsTheLatestUtterancesForgetsTheOldestAndCountsThemAll() async throws {
      // Dictation's request: four commands, a second of silence after each; only the latest
      // stay in the results, numbered from the session's start.
      let command = try Self.goForwardSamples() + [Int16](repeating: 0, count: 16_000)
      let outcome = await Self.recognize(
        Array([[Int16]](repeating: command, count: 4).joined()), keptUtterances: 1)
      #expect(outcome.error == nil)
      let utterances = try #require(outcome.last?.bestTranscription.finishedUtterances)
      #expect(utterances.endIndex == 4)
      // Between one and two are held: the first two went when the third finished.
      #expect(utterances.indices == 2..<4)
      #expect(outcome.text == "go forward ten meters go forward ten meters")
      // Each utterance was in some result before it was forgotten.
      let heard = Set(
        outcome.results.flatMap { result in
          let utterances = result.bestTranscription.finishedUtterances
          return utterances.indices.map {
            "\($0): " + utterances[$0].map(\.substring).joined(separator: " ")
          }
        })
      #expect(heard == Set((0..<4).map { "\($0): go forward ten meters" }))
      // Without the request's limit every one stays.
      let whole = await Self.recognize(Array([[Int16]](repeating: command, count: 4).joined()))
      #expect(whole.last?.bestTranscription.finishedUtterances.indices == 0..<4)
    }

    @Test func pushedAudioAt44kHzIsResampledTo16kHz() async throws {
      let directory = try TemporaryDirectory()
      let wide = directory.file("goforward-44k.raw")
      try runSox([
        "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
        TestData.goForward.path, "-t", "raw", "-r", "44100", wide.path,
      ])
      let data = try Data(contentsOf: wide)
      let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
      let outcome = await Self.recognize(samples, rate: 44_100)
      #expect(outcome.error == nil)
      #expect(outcome.text == "go forward ten meters")
      #expect(outcome.last?.progress?.recordedSampleRate == 44_100)
      #expect(outcome.last?.progress?.audioDuration == Double(samples.count) / 44_100)
    }

    @Test func aPhraseListRestrictsTheWordsAndTheDecoderGoesBackUnrestricted() async throws {
      var configuration = LiveSpeechConfiguration()
      configuration.jobs = 1
      let samples = try Self.goForwardSamples()
      let restricted = await Self.recognize(
        samples, model: .phrases(["go forward", "stop", "zzqx"]), configuration: configuration)
      #expect(restricted.error == nil)
      let words = Set(restricted.last?.bestTranscription.segments.map(\.substring) ?? [])
      #expect(!words.isEmpty)
      #expect(words.isSubset(of: ["go", "forward", "stop"]))
      // The same single pooled decoder, with its language model again.
      let free = await Self.recognize(samples, configuration: configuration)
      #expect(free.text == "go forward ten meters")
    }

    @Test func aPhraseListWithoutKnownWordsFails() async throws {
      let outcome = await Self.recognize(
        try Self.goForwardSamples(), model: .phrases(["zzqx qqzz"]))
      guard case .wordNotInDictionary(let word, _) = outcome.failure else {
        Issue.record("expected wordNotInDictionary, got \(String(describing: outcome.error))")
        return
      }
      #expect(word == "zzqx")
    }

    @Test func authorizationForPushedAudioChecksTheModelOnly() async {
      let check = await SpeechClient.checkAuthorization(
        for: SpeechRecognitionRequest(source: .pushed(PushedAudio())),
        LiveSpeechConfiguration(server: "unix:/nonexistent/pulse"))
      #expect(check.status == .authorized)
    }

    @Test func preloadingLoadsAStreamingDecoderOfThePool() async throws {
      var configuration = LiveSpeechConfiguration()
      configuration.jobs = 3
      try await configuration.preloadStreamingDecoder()
      let pool = try configuration.engine(
        for: SpeechRecognitionRequest(source: .pushed(PushedAudio()))
      ).sharedPool(size: 3)
      #expect(pool.workerCount == 1)
    }

    @Test func aSessionWhoseConsumerLeavesGivesItsDecoderBack() async throws {
      var settings = LiveSpeechConfiguration()
      settings.jobs = 1
      let configuration = settings
      let samples = try Self.goForwardSamples()
      // The only decoder streams for a session whose consumer goes away mid-stream.
      let audio = PushedAudio()
      let client = SpeechClient.live(configuration)
      do {
        let stream = await client.startTask(SpeechRecognitionRequest(source: .pushed(audio)))
        audio.push(Array(samples[0..<16_000]))
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
      }
      // The stream is gone: its task stops, though its audio never finished.
      #expect(!audio.isFinished)
      // The next session gets the decoder back, and decodes from a clean start.
      let next = await withTaskGroup(of: Outcome?.self) { group in
        group.addTask { await Self.recognize(samples, configuration: configuration) }
        group.addTask {
          try? await Task.sleep(for: .seconds(60))
          return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
      }
      #expect(next?.text == "go forward ten meters")
    }
  }
}
