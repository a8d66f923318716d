import AudioInput
import Foundation
import SpeechClient

/// The outcome of checking whether recognition can run, with the reason when it cannot: the
/// answer `requestAuthorization` gives.
public typealias AuthorizationCheck = SpeechClient.Authorization

extension SpeechClient {
  /// Checks whether `request` can run, the way the live client's `requestAuthorization` does.
  ///
  /// - The engine is not installed, or its model files are missing →
  ///   ``SpeechClient/AuthorizationStatus/restricted``.
  /// - For the microphone or a device: the server refuses access →
  ///   ``SpeechClient/AuthorizationStatus/denied``; no server answers within the connect
  ///   timeout, or the capture source does not exist → `restricted`.
  /// - Otherwise (files and pushed audio need no server) →
  ///   ``SpeechClient/AuthorizationStatus/authorized``.
  /// - Cancelled before the server answered → ``SpeechClient/AuthorizationStatus/notDetermined``.
  ///
  /// Use it where the reason matters, e.g. to print a message that names the fix.
  public static func checkAuthorization(
    for request: SpeechRecognitionRequest,
    _ configuration: LiveSpeechConfiguration = .init()
  ) async -> AuthorizationCheck {
    // Cancelling the caller (e.g. a stop while authorizing) ends a wait for a hung server.
    let stopSignal = StopSignal()
    return await withTaskCancellationHandler {
      await DedicatedThread.run(name: "transcribe.authorization") {
        check(request, configuration, stopSignal: stopSignal)
      }
    } onCancel: {
      stopSignal.stop()
    }
  }

  private static func check(
    _ request: SpeechRecognitionRequest, _ configuration: LiveSpeechConfiguration,
    stopSignal: StopSignal
  ) -> AuthorizationCheck {
    do {
      _ = try configuration.validatedEngine(for: request)
    } catch {
      return AuthorizationCheck(status: .restricted, reason: error)
    }
    let device: String?
    switch request.source {
    case .file, .rawFile, .standardInput, .pushed: return AuthorizationCheck(status: .authorized)
    case .microphone: device = nil
    case let .device(name): device = name
    }
    switch CaptureSourceCheck.check(
      device: device, configuration.pulseAudio, stopSignal: stopSignal)
    {
    case .available: return AuthorizationCheck(status: .authorized)
    case let .accessDenied(failure):
      return AuthorizationCheck(status: .denied, reason: SpeechClient.Failure(failure))
    case let .unavailable(failure):
      return AuthorizationCheck(status: .restricted, reason: SpeechClient.Failure(failure))
    case .stopped: return AuthorizationCheck(status: .notDetermined)
    }
  }
}
