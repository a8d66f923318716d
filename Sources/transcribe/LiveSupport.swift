import Foundation
import SpeechClient
import SpeechClientLive
import Synchronization

/// How the command configures the live client: its `--verbose` log, and the request
/// `requestAuthorization` checks (so a file needs no audio server).
enum LiveSupport {
  /// The live client for one request.
  static func client(for request: SpeechRecognitionRequest, verbose: Bool) -> SpeechClient {
    .live(LiveSpeechConfiguration(isVerbose: verbose, authorizationRequest: request))
  }
}
