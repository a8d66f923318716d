import SpeechClient
import SpeechRecognitionFeature

/// Why a session's recognition gave no words to trust: the server's one reading of a
/// recognition outcome, each problem with one wording. Each protocol only renders it (an
/// upload's HTTP status and OpenAI error, a stream's close code).
enum RecognitionProblem: Equatable, Sendable {
  /// The audio cannot be read; `reason` is the decoder's.
  case unreadableAudio(reason: String)
  /// The engine asked for is not installed here.
  case engineNotInstalled(String)
  /// A word of a phrase list is not in the engine's dictionary.
  case wordNotInDictionary(String)
  /// Recognition failed or may not run on the server; the text says why, for a client.
  case failed(String)
  /// After the end of the audio, the recognizer did not deliver its last words in time.
  case lastWordsLate(within: Duration)
  /// Recognition was cancelled before its outcome.
  case cancelled

  /// The problem of a session whose recognition ended with `outcome`; `nil` when it finished.
  init?(_ outcome: SpeechRecognition.Outcome?) {
    switch outcome {
    case .finished:
      return nil
    case .failed(.fileUnreadable(_, let reason)):
      self = .unreadableAudio(reason: reason)
    case .failed(.engineUnavailable(let engine, _)):
      self = .engineNotInstalled(engine)
    case .failed(.wordNotInDictionary(let word, _)):
      self = .wordNotInDictionary(word)
    case .failed(let failure):
      self = .failed(failure.remoteProblem)
    case .notAuthorized(let authorization):
      if case .engineUnavailable(let engine, _) = authorization.reason {
        self = .engineNotInstalled(engine)
      } else {
        self = .failed(
          authorization.reason?.remoteProblem
            ?? "recognition is not available (\(authorization.status.rawValue))")
      }
    case .stopTimedOut:
      self = .lastWordsLate(within: SpeechRecognition().stopDeadline)
    case .cancelled, nil:
      self = .cancelled
    }
  }

  /// What went wrong, as the server tells a client (after "recognition failed: ").
  var message: String {
    switch self {
    case .unreadableAudio(let reason): "the audio cannot be read: \(reason)"
    case .engineNotInstalled(let engine): "\(engine) is not installed on this server"
    case .wordNotInDictionary(let word): "the word '\(word)' is not in the dictionary"
    case .failed(let problem): problem
    case .lastWordsLate(let deadline):
      "the last words did not arrive within \(deadline.spokenSeconds) of the end of the audio "
        + "(every decoder may be busy); try again later"
    case .cancelled: "the session was cancelled"
    }
  }
}
