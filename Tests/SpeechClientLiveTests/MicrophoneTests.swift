import AudioInput
import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

extension LiveTests {
  /// End to end through a real PulseAudio server: speech played into a virtual microphone.
  @Suite(
    .serialized,
    .enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"),
    .enabled(
      if: VirtualMicrophone.shared != nil || VirtualMicrophone.isRequired,
      "PulseAudio could not be started here"),
    StopsSharedVirtualMicrophone()
  )
  struct MicrophoneTests {
    let microphone: VirtualMicrophone

    init() throws {
      microphone = try #require(VirtualMicrophone.shared, "PulseAudio could not be started")
    }

    @Test func spokenWordsAreTranscribedFromTheMicrophone() async throws {
      let directory = try TemporaryDirectory()
      let speech = directory.file("goforward.wav")
      try soxConvertGoForward(to: speech, effects: ["pad", "0.3", "0"])
      let client = SpeechClient.live(LiveSpeechConfiguration(server: microphone.server))

      let outcome = try await listen(client) {
        try microphone.play(speech)
        try await Task.sleep(for: .seconds(1.2))
      }

      #expect(outcome.error == nil)
      #expect(outcome.text == "go forward ten meters")
      #expect(outcome.last?.isFinal == true)
      #expect(outcome.results.dropLast().contains { !$0.isFinal })
    }

    @Test func finishingWhileSpeakingDeliversTheWordsSoFarAsFinal() async throws {
      let directory = try TemporaryDirectory()
      let speech = directory.file("goforward.wav")
      try soxConvertGoForward(to: speech)
      let client = SpeechClient.live(LiveSpeechConfiguration(server: microphone.server))
      let stream = await client.startTask(SpeechRecognitionRequest())
      let playing = Task.detached { try microphone.play(speech) }
      let giveUp = Task {
        try await Task.sleep(for: .seconds(20))
        await client.finishTask()
      }
      defer { giveUp.cancel() }

      var results: [SpeechRecognitionResult] = []
      var finishing: Task<Void, Never>?
      for try await result in stream {
        results.append(result)
        // Stop at the first partial words: the utterance is still going on.
        if finishing == nil, !result.bestTranscription.formattedString.isEmpty {
          finishing = Task { await client.finishTask() }
        }
      }
      await finishing?.value
      try await playing.value

      let partial = try #require(results.first)
      #expect(!partial.isFinal)
      #expect(results.last?.isFinal == true)
      #expect(results.filter(\.isFinal).count == 1)
      #expect(results.last?.bestTranscription.formattedString.hasPrefix("go") == true)
    }

    @Test func audioCapturedBeforeFinishingIsStillDecoded() async throws {
      let directory = try TemporaryDirectory()
      let speech = directory.file("goforward.wav")
      try soxConvertGoForward(to: speech, effects: ["pad", "0.3", "0.3"])
      let client = SpeechClient.live(LiveSpeechConfiguration(server: microphone.server))

      // Finish right after the speech, before the utterance's trailing silence was detected
      // and, on a busy machine, before the decoder has caught up.
      let outcome = try await listen(client) { try microphone.play(speech) }

      #expect(outcome.error == nil)
      #expect(outcome.last?.isFinal == true)
      #expect(outcome.text == "go forward ten meters")
    }

    @Test func namedDeviceIsRecordedFrom() async throws {
      let directory = try TemporaryDirectory()
      let speech = directory.file("goforward.wav")
      try soxConvertGoForward(to: speech, effects: ["pad", "0.3", "0"])
      let client = SpeechClient.live(LiveSpeechConfiguration(server: microphone.server))
      let outcome = try await listen(
        client, SpeechRecognitionRequest(source: .device("virtual_mic"))
      ) {
        try microphone.play(speech)
        try await Task.sleep(for: .seconds(1.2))
      }
      #expect(outcome.text == "go forward ten meters")
    }

    @Test func unknownDeviceIsNotFoundAndTheAvailableSourcesAreListed() async throws {
      let client = SpeechClient.live(LiveSpeechConfiguration(server: microphone.server))
      let outcome = await collect(
        await client.startTask(SpeechRecognitionRequest(source: .device("no_such_source"))))
      #expect(
        outcome.failure
          == .captureSourceNotFound(
            name: "no_such_source", available: ["virtual_mic", "virtual_speaker.monitor"]))
      #expect(outcome.results.isEmpty)
    }

    @Test func cancellingTheConsumerStopsTheTask() async throws {
      let (task, stream) = RecognitionTask.start(
        SpeechRecognitionRequest(),
        configuration: LiveSpeechConfiguration(server: microphone.server))
      let listening = Task { await collect(stream) }
      try await Task.sleep(for: .seconds(0.5))
      listening.cancel()
      _ = await listening.value
      // Nothing but the cancellation stops the task: the microphone would record forever.
      #expect(await finishes(task, within: .seconds(1)))
    }

    @Test func devicesListTheVirtualMicrophoneAsDefault() async throws {
      let devices = try await AudioDevice.captureSources(
        LiveSpeechConfiguration(server: microphone.server))
      let mic = try #require(devices.first { $0.name == "virtual_mic" })
      #expect(mic.description == "Virtual_Microphone")
      #expect(mic.isDefault)
      #expect(!mic.isMonitor)
      #expect(devices.contains { $0.name == "virtual_speaker.monitor" && $0.isMonitor })
    }

    @Test func authorizationReflectsServerSourceAndModel() async throws {
      let configuration = LiveSpeechConfiguration(server: microphone.server)
      #expect(
        await SpeechClient.checkAuthorization(for: SpeechRecognitionRequest(), configuration)
          == AuthorizationCheck(status: .authorized))
      #expect(await SpeechClient.live(configuration).requestAuthorization() == .authorized)

      let unknown = await SpeechClient.checkAuthorization(
        for: SpeechRecognitionRequest(source: .device("no_such_source")), configuration)
      #expect(unknown.status == .restricted)
      #expect(
        unknown.reason
          == .captureSourceNotFound(
            name: "no_such_source", available: ["virtual_mic", "virtual_speaker.monitor"]))

      let noModel = await SpeechClient.checkAuthorization(
        for: SpeechRecognitionRequest(
          model: .grammar(URL(fileURLWithPath: "/nonexistent.gram"))), configuration)
      #expect(noModel.status == .restricted)
    }

    @Test func killedServerFailsTheTaskWithTheWordsSoFar() async throws {
      let server = try VirtualMicrophone.start("killed")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let speech = directory.file("twice.wav")
      try soxConvertGoForward(to: speech, effects: ["pad", "0.3", "1", "repeat", "1"])
      let client = SpeechClient.live(LiveSpeechConfiguration(server: server.server))
      let stream = await client.startTask(SpeechRecognitionRequest())
      let playing = Task.detached { try? server.play(speech) }
      let giveUp = Task {
        try await Task.sleep(for: .seconds(20))
        await client.finishTask()
      }
      defer { giveUp.cancel() }

      var results: [SpeechRecognitionResult] = []
      var failure: (any Error)?
      var killedAt: Date?
      do {
        for try await result in stream {
          results.append(result)
          if killedAt == nil,
            result.bestTranscription.formattedString.hasPrefix("go forward ten meters"),
            result.bestTranscription.segments.allSatisfy({ $0.confidence > 0 }),
            let pid = server.pid
          {
            kill(pid, SIGKILL)
            killedAt = Date()
          }
        }
      } catch {
        failure = error
      }
      _ = await playing.value

      let killed = try #require(killedAt)
      guard case .audioDeviceFailed = failure as? SpeechClient.Failure else {
        Issue.record("expected audioDeviceFailed, got \(String(describing: failure))")
        return
      }
      #expect(Date().timeIntervalSince(killed) < 1.5)
      #expect(results.last?.isFinal == true)
      #expect(
        results.last?.bestTranscription.formattedString.hasPrefix("go forward ten meters") == true)
    }

    @Test func stoppedServerFailsTheTaskWithinTheAudioTimeout() async throws {
      let server = try VirtualMicrophone.start("stopped")
      defer { server.stop() }
      let pid = try #require(server.pid)
      let client = SpeechClient.live(
        LiveSpeechConfiguration(server: server.server, audioTimeout: .seconds(1)))
      let stream = await client.startTask(SpeechRecognitionRequest())
      let listening = Task { await collect(stream) }
      try await Task.sleep(for: .seconds(0.5))
      kill(pid, SIGSTOP)
      let stoppedAt = Date()
      defer { kill(pid, SIGCONT) }
      let outcome = await listening.value

      guard case .audioDeviceFailed(let message) = outcome.failure else {
        Issue.record("expected audioDeviceFailed, got \(String(describing: outcome.error))")
        return
      }
      #expect(message.contains("no audio"))
      #expect(Date().timeIntervalSince(stoppedAt) < 2.5)
      #expect(outcome.last?.isFinal == true)
    }

    @Test func finishingWhileConnectingEndsWithoutAnError() async throws {
      let server = try VirtualMicrophone.start("connecting")
      defer { server.stop() }
      let pid = try #require(server.pid)
      kill(pid, SIGSTOP)
      defer { kill(pid, SIGCONT) }
      let client = SpeechClient.live(LiveSpeechConfiguration(server: server.server))
      let stream = await client.startTask(SpeechRecognitionRequest())
      try await Task.sleep(for: .seconds(0.3))
      let start = Date()
      await client.finishTask()
      let outcome = await collect(stream)
      #expect(Date().timeIntervalSince(start) < 1)
      #expect(outcome.error == nil)
      #expect(outcome.results.map(\.isFinal) == [true])
      #expect(outcome.text == "")
    }

    @Test func stoppedServerRestrictsWithinTheConnectTimeoutAndCancellingEndsTheCheck()
      async throws
    {
      let server = try VirtualMicrophone.start("hung-check")
      defer { server.stop() }
      let pid = try #require(server.pid)
      kill(pid, SIGSTOP)
      defer { kill(pid, SIGCONT) }
      let client = SpeechClient.live(LiveSpeechConfiguration(server: server.server))

      let start = ContinuousClock.now
      #expect(await client.requestAuthorization().status == .restricted)
      // The promise is 2 s; this is a hang check with room for a busy machine.
      #expect(ContinuousClock.now - start < .seconds(2.5))

      let checking = Task { await client.requestAuthorization() }
      try await Task.sleep(for: .milliseconds(300))
      let cancelled = ContinuousClock.now
      checking.cancel()
      #expect(await checking.value == .notDetermined)
      #expect(ContinuousClock.now - cancelled < .seconds(0.5))
    }

    @Test func stoppedServerIsUnreachableWithinTheConnectTimeout() async throws {
      let server = try VirtualMicrophone.start("hung")
      defer { server.stop() }
      let pid = try #require(server.pid)
      kill(pid, SIGSTOP)
      defer { kill(pid, SIGCONT) }
      let start = Date()
      let outcome = await collect(
        await SpeechClient.live(LiveSpeechConfiguration(server: server.server))
          .startTask(SpeechRecognitionRequest()))
      guard case .audioServerUnreachable = outcome.failure else {
        Issue.record("expected audioServerUnreachable, got \(String(describing: outcome.error))")
        return
      }
      #expect(Date().timeIntervalSince(start) < 3)
    }
  }

  /// Without any server: no PulseAudio needed.
  struct NoAudioServerTests {
    static let nowhere = "unix:/tmp/speechclientlive-no-server/native"

    @Test func missingServerIsUnreachableWithinTwoSeconds() async throws {
      let start = Date()
      let outcome = await collect(
        await SpeechClient.live(LiveSpeechConfiguration(server: Self.nowhere))
          .startTask(SpeechRecognitionRequest()))
      #expect(Date().timeIntervalSince(start) < 2)
      guard case .audioServerUnreachable(let message) = outcome.failure else {
        Issue.record("expected audioServerUnreachable, got \(String(describing: outcome.error))")
        return
      }
      #expect(message.contains("Connection refused") || message.contains("No such file"))
      #expect(outcome.results.isEmpty)
    }

    @Test func missingServerRestrictsTheMicrophoneButNotFiles() async throws {
      let configuration = LiveSpeechConfiguration(server: Self.nowhere)
      let microphone = await SpeechClient.checkAuthorization(
        for: SpeechRecognitionRequest(), configuration)
      #expect(microphone.status == .restricted)
      guard case .audioServerUnreachable = microphone.reason else {
        Issue.record(
          "expected audioServerUnreachable, got \(String(describing: microphone.reason))")
        return
      }
      let file = await SpeechClient.checkAuthorization(
        for: SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "talk.wav"))),
        configuration)
      #expect(file.status == .authorized)
    }

    @Test func listingDevicesWithoutServerIsUnreachable() async throws {
      await #expect(throws: SpeechClient.Failure.self) {
        try await AudioDevice.captureSources(LiveSpeechConfiguration(server: Self.nowhere))
      }
    }
  }
}
