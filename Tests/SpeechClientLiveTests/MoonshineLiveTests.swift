import AudioInput
import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

extension LiveTests {
  /// The Moonshine engine through the live client: the same file, stream and pushed-audio code
  /// as pocketsphinx, with the real model.
  @Suite(
    .serialized,
    .enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata"),
    .enabled(if: MoonshineTestData.testsRun, "needs Moonshine (./scripts/install-dependencies.sh)")
  )
  struct MoonshineLiveTests {
    let moonshine = SpeechRecognitionRequest.Engine.moonshine()

    @Test func aFileIsCutAtPausesAndDecodedOnThePool() async throws {
      let directory = try TemporaryDirectory()
      let twice = directory.file("twice.wav")
      try soxConvertGoForward(to: twice, effects: ["pad", "0", "1", "repeat", "1"])
      var configuration = LiveSpeechConfiguration()
      configuration.jobs = 2
      let outcome = await collect(
        await SpeechClient.live(configuration).startTask(
          SpeechRecognitionRequest(source: .file(twice), engine: moonshine)))
      #expect(outcome.error == nil)
      let transcription = try #require(outcome.last?.bestTranscription)
      #expect(transcription.formattedString == "Go forward ten metres. Go forward ten metres.")
      let starts = transcription.segments.map(\.timestamp)
      #expect(starts == starts.sorted())
      // The second copy starts 3.8 s in (2.8 s of speech and its silence, 1 s of padding).
      #expect(abs(transcription.segments[4].timestamp - 3.8 - starts[0]) < 0.5)
    }

    @Test func theDefaultEngineOfTheConfigurationDecodesAutomaticRequests() async throws {
      var configuration = LiveSpeechConfiguration()
      configuration.defaultEngine = .moonshine
      let outcome = await collect(
        await SpeechClient.live(configuration).startTask(
          SpeechRecognitionRequest(source: .rawFile(TestData.goForward))))
      #expect(outcome.text == "Go forward ten metres.")
      #expect(try configuration.engine(for: SpeechRecognitionRequest()).name == .moonshine)
    }

    @Test func pushedAudioStreamsPartialsThenTheFinalWords() async throws {
      let samples = try LiveTests.PushedRecognitionTests.goForwardSamples()
      let audio = PushedAudio(sampleRate: 16_000)
      let client = SpeechClient.live(LiveSpeechConfiguration())
      let stream = await client.startTask(
        SpeechRecognitionRequest(source: .pushed(audio), engine: moonshine))
      Task.detached {
        // 100 ms at a time, as a server's client sends it (faster than real time).
        for start in stride(from: 0, to: samples.count, by: 1600) {
          audio.push(Array(samples[start..<min(start + 1600, samples.count)]))
        }
        audio.push([Int16](repeating: 0, count: 16_000))
        audio.finish()
      }
      let outcome = await collect(stream)
      #expect(outcome.error == nil)
      #expect(spoken(outcome.text) == "go forward ten meters", "\(outcome.text ?? "")")
      #expect(outcome.last?.isFinal == true)
    }

    @Test func oneProcessRunsBothEnginesAtOnce() async throws {
      async let pocketsphinx = transcribe(.rawFile(TestData.goForward))
      async let moonshine = collect(
        await SpeechClient.live().startTask(
          SpeechRecognitionRequest(source: .rawFile(TestData.goForward), engine: moonshine)))
      #expect(await pocketsphinx.text == "go forward ten meters")
      #expect(await moonshine.text == "Go forward ten metres.")
    }

    @Test func aModelDirectoryThatIsNotThereIsNotFoundNamingIt() async throws {
      let missing = URL(fileURLWithPath: "/nonexistent/moonshine")
      let outcome = await collect(
        await SpeechClient.live().startTask(
          SpeechRecognitionRequest(
            source: .rawFile(TestData.goForward), engine: .moonshine(modelDirectory: missing))))
      #expect(
        outcome.error as? SpeechClient.Failure
          == .modelFileNotFound(.modelDirectory, path: missing.path))
    }

    @Test func aMissingRuntimeMakesTheEngineUnavailableBeforeAnythingIsRead() async throws {
      var configuration = LiveSpeechConfiguration()
      configuration.onnxRuntimeLibrary = URL(fileURLWithPath: "/nonexistent/libonnxruntime.so.1")
      let request = SpeechRecognitionRequest(source: .pushed(PushedAudio()), engine: moonshine)
      let check = await SpeechClient.checkAuthorization(for: request, configuration)
      #expect(check.status == .restricted)
      guard case .engineUnavailable(let engine, let reason) = check.reason else {
        Issue.record("expected engineUnavailable, got \(String(describing: check.reason))")
        return
      }
      #expect(engine == "Moonshine")
      #expect(reason.contains("/nonexistent/libonnxruntime.so.1"))
    }
  }
}

extension LiveTests.MicrophoneTests {
  @Test(
    .enabled(if: MoonshineTestData.testsRun, "needs Moonshine (./scripts/install-dependencies.sh)"))
  func moonshineTranscribesTheMicrophoneWithPartialWordsWhileSpeaking() async throws {
    let directory = try TemporaryDirectory()
    let speech = directory.file("goforward.wav")
    try soxConvertGoForward(to: speech, effects: ["pad", "0.3", "0"])
    let client = SpeechClient.live(LiveSpeechConfiguration(server: microphone.server))
    let outcome = try await listen(
      client, SpeechRecognitionRequest(engine: .moonshine())
    ) {
      try microphone.play(speech)
      try await Task.sleep(for: .seconds(1.5))
    }
    #expect(outcome.error == nil)
    #expect(spoken(outcome.text) == "go forward ten meters", "\(outcome.text ?? "")")
    #expect(outcome.last?.isFinal == true)
    // Partial words came while the utterance was still being spoken.
    #expect(
      outcome.results.contains {
        !$0.isFinal && !$0.bestTranscription.partialSegments.isEmpty
      })
  }
}

/// Moonshine's text as words, the way a reference transcript spells them: "Go forward 10
/// meters." and "Go forward ten metres." (which it writes depends on the silence around the
/// words) are both "go forward ten meters".
func spoken(_ text: String?) -> String {
  (text ?? "").lowercased().split(separator: " ")
    .map { $0.filter { $0.isLetter || $0.isNumber } }
    .map { $0 == "10" ? "ten" : $0 == "metres" ? "meters" : $0 }
    .joined(separator: " ")
}
