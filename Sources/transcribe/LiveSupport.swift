import Foundation
import SpeechClient
import SpeechClientLive
import Synchronization

/// How the command configures the live client: its `--verbose` log, and the request
/// `requestAuthorization` checks (so a file needs no audio server).
enum LiveSupport {
  /// The live client for one request.
  static func client(for request: SpeechRecognitionRequest, verbose: Bool) -> SpeechClient {
    var configuration = LiveSpeechConfiguration(
      isVerbose: verbose, authorizationRequest: request)
    configuration.warning = { warning in
      Terminal.writeError("transcribe: warning: \(warning.message)\n")
    }
    return .live(configuration)
  }
}
