import Foundation
import SpeechClient
import SpeechClientLive
import Synchronization

/// How the command configures the live client: its `--verbose` log, the decoding options, and
/// the request `requestAuthorization` checks (so a file needs no audio server).
enum LiveSupport {
  /// `--jobs`, `--silence` and `--max-utterance`, and the command's files, decoding ahead.
  private static let decoding = Mutex(LiveSpeechConfiguration())

  /// Sets the decoding options for every client of this run (`alternatives`: whether words'
  /// alternatives are wanted; `partialWords`: whether the words of an utterance still being
  /// decoded are shown), and starts decoding `files` (in parallel, on the decoder pool) so each
  /// file's session finds its results ready or coming.
  static func configureDecoding(
    jobs: Int?, silence: Double?, maxUtterance: Double?, alternatives: Bool, partialWords: Bool,
    verbose: Bool, files: [SpeechRecognitionRequest]
  ) {
    var configuration = LiveSpeechConfiguration(isVerbose: verbose)
    // Only JSON output shows each word's alternatives; the n-best search is skipped otherwise.
    if !alternatives { configuration.alternativeCount = 0 }
    // Only a terminal's live row shows a file's partial words; their searches are skipped
    // otherwise.
    configuration.reportsPartialWordsOfFiles = partialWords
    if let jobs { configuration.jobs = jobs }
    if let silence { configuration.endOfUtteranceSilence = silence }
    if let maxUtterance { configuration.maximumUtteranceDuration = maxUtterance }
    if !files.isEmpty {
      configuration.fileBatch = FileRecognitionBatch(files, configuration: configuration)
    }
    decoding.withLock { $0 = configuration }
  }

  /// How far decoding the command's files has come, when there are several.
  static var batchProgress: FileBatchProgress? {
    decoding.withLock { configuration in
      configuration.fileBatch.map(\.progress).flatMap { $0.fileCount > 1 ? $0 : nil }
    }
  }

  /// The live client for one request.
  static func client(for request: SpeechRecognitionRequest, verbose: Bool) -> SpeechClient {
    var configuration = decoding.withLock { $0 }
    configuration.isVerbose = verbose
    configuration.authorizationRequest = request
    return .live(configuration)
  }
}
