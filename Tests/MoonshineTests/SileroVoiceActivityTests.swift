import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import Moonshine

/// Whether Silero VAD's model is installed and ONNX Runtime loads.
let isSileroInstalled = SileroVoiceActivityModel.isInstalled()

/// The reason shown when the Silero VAD tests are skipped.
let sileroRequirement: Comment =
  "needs ONNX Runtime and Silero VAD's model (./scripts/install-dependencies.sh)"

/// Silero VAD as installed, with the default threshold.
func installedSilero() throws -> VoiceActivityDetection {
  .silero(try SileroVoiceActivityModel.shared(file: nil, runtimeLibrary: nil))
}

/// Each window's speech probability over `samples`.
func probabilities(_ samples: [Int16], detection: VoiceActivityDetection) throws -> [Float] {
  var activity = try detection.makeStream()
  let length = activity.windowLength
  return try stride(from: 0, to: samples.count - length + 1, by: length).map { start in
    _ = try activity.isSpeech(samples, window: start..<start + length)
    return activity.lastProbability
  }
}

@Suite struct SileroModelTests {
  @Test func continuousIntegrationHasSilero() {
    if ProcessInfo.processInfo.environment["CI"] != nil {
      #expect(isSileroInstalled, "CI installs Silero VAD with ./scripts/install-dependencies.sh")
    }
  }

  @Test func theDefaultModelFileFollowsTheEnvironment() throws {
    let named = SileroVoiceActivityModel.defaultModelFile(environment: [
      "TRANSCRIBE_VAD_MODEL": "/opt/vad/model.onnx"
    ])
    #expect(named.path == "/opt/vad/model.onnx")
    let home = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let data = home.appendingPathComponent("data/transcribe/silero-vad")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    let file = data.appendingPathComponent("silero_vad.onnx")
    try Data([1]).write(to: file)
    let found = SileroVoiceActivityModel.defaultModelFile(environment: [
      "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
    ])
    #expect(found.path == file.path)
  }

  @Test func aMissingFileTheCallerNamedIsNotFound() {
    #expect(throws: RecognitionFailure.modelFileNotFound(.voiceActivityModel, path: "/no/vad.onnx"))
    {
      try SileroVoiceActivityModel.shared(
        file: URL(fileURLWithPath: "/no/vad.onnx"), runtimeLibrary: nil)
    }
  }

  @Test func aMissingInstalledModelSaysHowToInstallIt() {
    do {
      _ = try SileroVoiceActivityModel(
        file: URL(fileURLWithPath: "/no/silero_vad.onnx"), isNamed: false, runtimeLibrary: nil)
      Issue.record("a missing model loaded")
    } catch .modelMissing(let detail) {
      #expect(detail.contains("./scripts/install-dependencies.sh"))
      #expect(detail.contains("TRANSCRIBE_VAD_MODEL"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test func aFileThatIsNotAModelIsReported() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("vad.onnx")
    try Data("not a model at all\n".utf8).write(to: file)
    do {
      _ = try SileroVoiceActivityModel.shared(file: file, runtimeLibrary: nil)
      Issue.record("a text file loaded as a model")
    } catch .modelCorrupt(let detail) {
      #expect(detail.contains(file.path))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func anotherModelIsNotTakenForSilero() throws {
    let files = try MoonshineModelFiles(directory: installedConfiguration.modelDirectory)
    do {
      _ = try SileroVoiceActivityModel.shared(file: files.encoder, runtimeLibrary: nil)
      Issue.record("Moonshine's encoder loaded as Silero VAD")
    } catch .modelCorrupt(let detail) {
      #expect(detail.contains("is not Silero VAD's model"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test(.enabled(if: isSileroInstalled, sileroRequirement))
  func withoutONNXRuntimeSileroIsUnavailable() {
    do {
      _ = try SileroVoiceActivityModel.shared(
        file: nil, runtimeLibrary: URL(fileURLWithPath: "/no/libonnxruntime.so.1"))
      Issue.record("Silero VAD loaded without ONNX Runtime")
    } catch .runtimeUnavailable(let engine, let reason) {
      #expect(engine == "Silero VAD")
      #expect(reason.contains("/no/libonnxruntime.so.1"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test(.enabled(if: isSileroInstalled, sileroRequirement))
  func theModelIsLoadedOncePerProcess() throws {
    let first = try SileroVoiceActivityModel.shared(file: nil, runtimeLibrary: nil)
    let second = try SileroVoiceActivityModel.shared(file: nil, runtimeLibrary: nil)
    #expect(first === second)
  }
}

@Suite(.enabled(if: isSileroInstalled && SpeechTestData.isInstalled, sileroRequirement))
struct SileroDetectorTests {
  @Test func speechIsHeardAndSilenceIsNot() throws {
    // goforward.raw: about 0.3 s of quiet, "go forward ten meters", then quiet.
    let samples = try goForwardSamples() + [Int16](repeating: 0, count: 16_000)
    let windows = try probabilities(samples, detection: try installedSilero())
    #expect(windows.count == samples.count / 512)
    let seconds = { (window: Int) in Double(window * 512) / 16_000 }
    let speech = windows.indices.filter { windows[$0] >= 0.5 }
    #expect(!speech.isEmpty)
    #expect(seconds(speech.first ?? 0) > 0.2 && seconds(speech.first ?? 0) < 1)
    // Nothing in the second of digital silence at the end.
    let tail = windows.suffix(16_000 / 512 - 8)
    #expect(tail.allSatisfy { $0 < 0.2 })
  }

  @Test func steadyNoiseAloneIsNotSpeech() throws {
    let directory = try TemporaryDirectory()
    _ = try NoisySpeech.room(in: directory.url, snr: 10)
    let noise = try NoisySpeech.samples(
      of: directory.url.appendingPathComponent("room-pinknoise.wav"))
    // The noise as loud as it is under the speech at 10 dB: never speech.
    let windows = try probabilities(noise, detection: try installedSilero())
    #expect(windows.allSatisfy { $0 < 0.5 }, "max \(windows.max() ?? 0)")
  }

  @Test func speechUnderNoiseIsHeardWhereTheEnergyDetectorLosesIt() throws {
    let directory = try TemporaryDirectory()
    let room = try NoisySpeech.room(in: directory.url, snr: 10)
    let samples = try NoisySpeech.samples(of: room.url)
    func heard(_ detection: VoiceActivityDetection) throws -> Double {
      // The share of the sentences' time the detector takes for speech.
      var activity = try detection.makeStream()
      let length = activity.windowLength
      var inside = 0
      var speech = 0
      for start in stride(from: 0, to: samples.count - length + 1, by: length) {
        let isSpeech = try activity.isSpeech(samples, window: start..<start + length)
        let time = Double(start) / 16_000
        if room.spans.contains(where: { $0.contains(time) }) {
          inside += 1
          if isSpeech { speech += 1 }
        }
      }
      return Double(speech) / Double(inside)
    }
    let silero = try heard(try installedSilero())
    let energy = try heard(.energy)
    // Read speech has short gaps between words, so not every window is speech.
    #expect(silero > 0.75, "Silero VAD hears \(silero) of the sentences")
    #expect(energy < silero - 0.2, "the energy detector hears \(energy), Silero VAD \(silero)")
  }

  @Test func aDetectorStartsOverAfterAReset() throws {
    let samples = try goForwardSamples()
    let detection = try installedSilero()
    var activity = try detection.makeStream()
    let length = activity.windowLength
    func run() throws -> [Float] {
      try stride(from: 0, to: samples.count - length + 1, by: length).map { start in
        _ = try activity.isSpeech(samples, window: start..<start + length)
        return activity.lastProbability
      }
    }
    let first = try run()
    activity.reset()
    #expect(try run() == first)
  }
}
