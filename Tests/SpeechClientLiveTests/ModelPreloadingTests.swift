import Foundation
import Moonshine
import SpeechClient
import Testing
import Whisper

@testable import SpeechClientLive

/// `startLoadingModel(for:)` builds its engine with the energy detector, so that Silero VAD is
/// not loaded there: that must name the very model the recognizers load with the detector the
/// run resolves, or a second copy of the model would be loaded.
struct ModelPreloadingTests {
  static let file = SpeechRecognitionRequest.AudioSource.file(URL(fileURLWithPath: "/tmp/a.wav"))

  /// The run's configuration (its detector left to the default: Silero VAD when installed) and
  /// the one the model is loaded ahead with.
  static func configurations() -> (run: LiveSpeechConfiguration, ahead: LiveSpeechConfiguration) {
    let run = LiveSpeechConfiguration()
    return (run, run.modelLoadingConfiguration)
  }

  @Test func theMoonshineModelLoadedAheadIsTheRecognizersOne() throws {
    let (run, ahead) = Self.configurations()
    let request = SpeechRecognitionRequest(source: Self.file, engine: .moonshine())
    guard case .moonshine(let used) = try run.pooledEngine(for: request),
      case .moonshine(let loaded) = try ahead.pooledEngine(for: request)
    else {
      Issue.record("a Moonshine request is decoded by Moonshine")
      return
    }
    #expect(loaded.modelDirectory == used.modelDirectory)
    #expect(loaded.runtimeLibrary == used.runtimeLibrary)
    #expect(loaded.threadsPerRun == used.threadsPerRun)
  }

  @Test func theWhisperModelLoadedAheadIsTheRecognizersOne() throws {
    let (run, ahead) = Self.configurations()
    var request = SpeechRecognitionRequest(source: Self.file, engine: .whisper())
    request.language = .code("de")
    guard case .whisper(let used) = try run.pooledEngine(for: request),
      case .whisper(let loaded) = try ahead.pooledEngine(for: request)
    else {
      Issue.record("a Whisper request is decoded by Whisper")
      return
    }
    #expect(loaded.modelFile == used.modelFile)
  }
}
