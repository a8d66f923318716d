import Dependencies
import IssueReporting

/// The speech-recognition client: an interface of endpoints, with live, test and preview values.
///
/// Features depend on this interface only. The live value (PulseAudio capture and pocketsphinx
/// decoding) lives in `SpeechClientLive`, which only the executable links; tests get an
/// unimplemented value and previews a client that speaks lorem ipsum.
///
/// ```swift
/// @Dependency(\.speechClient) var speechClient
///
/// let status = await speechClient.requestAuthorization()
/// guard status == .authorized else { return }
/// for try await result in await speechClient.startTask(SpeechRecognitionRequest()) {
///   print(result.bestTranscription.formattedString)
/// }
/// ```
public struct SpeechClient: Sendable {
  /// Checks that recognition can run: the audio server and capture source are reachable and
  /// the model is present. See ``AuthorizationStatus``.
  public var requestAuthorization: @Sendable () async -> AuthorizationStatus
  /// Starts recognizing; results arrive on the stream until it finishes or fails with a
  /// ``Failure``.
  public var startTask:
    @Sendable (SpeechRecognitionRequest) async -> AsyncThrowingStream<
      SpeechRecognitionResult, any Error
    >
  /// Stops listening, delivers the last words as a final result, and finishes the stream.
  public var finishTask: @Sendable () async -> Void

  /// Creates a client from its endpoints.
  public init(
    requestAuthorization: @escaping @Sendable () async -> AuthorizationStatus,
    startTask:
      @escaping @Sendable (SpeechRecognitionRequest) async -> AsyncThrowingStream<
        SpeechRecognitionResult, any Error
      >,
    finishTask: @escaping @Sendable () async -> Void
  ) {
    self.requestAuthorization = requestAuthorization
    self.startTask = startTask
    self.finishTask = finishTask
  }

  /// Whether speech recognition may run, mirroring `SFSpeechRecognizerAuthorizationStatus`.
  ///
  /// On Linux there is no permission prompt; the status describes the real situation:
  /// - ``notDetermined``: not checked yet.
  /// - ``denied``: the audio server refused access (authentication or permissions).
  /// - ``restricted``: no capture source, or the speech model is missing or unreadable.
  /// - ``authorized``: the server is reachable, the source exists and the model is readable.
  public enum AuthorizationStatus: String, Equatable, Sendable, Codable {
    case notDetermined
    case denied
    case restricted
    case authorized
  }

  /// The ways recognition can fail.
  public enum Failure: Error, Equatable, Sendable {
    /// No audio server answered (not running, or not reachable at the configured address).
    case audioServerUnreachable(String)
    /// The capture source does not exist.
    case captureSourceMissing(String)
    /// The audio device stopped delivering audio (server died or hung).
    case audioDeviceFailed(String)
    /// The model files are missing.
    case modelMissing(String)
    /// The model files could not be loaded.
    case modelCorrupt(String)
    /// An audio file could not be opened or read.
    case fileUnreadable(path: String, reason: String)
    /// The decoder failed.
    case decoderFailure(String)
    /// A model file the request names is not there (a path given by the user, rather than the
    /// installed default model, which is ``modelMissing(_:)``).
    case modelFileNotFound(ModelFile, path: String)
    /// The JSGF grammar cannot be parsed; `reason` is the parser's, with the line.
    case grammarInvalid(path: String, reason: String)
    /// A word of the key phrase or the grammar is not in the pronunciation dictionary.
    case wordNotInDictionary(word: String, dictionary: String)
    /// The pronunciation dictionary has entries the decoder cannot use (e.g. not a dictionary).
    case dictionaryInvalid(path: String, reason: String)
    /// The named capture source does not exist; `available` lists the server's sources.
    case captureSourceNotFound(name: String, available: [String])

    /// The files a model is made of, as a request names them.
    public enum ModelFile: String, Equatable, Sendable {
      /// The acoustic model directory (`--hmm`).
      case acousticModel = "acoustic model"
      /// The statistical language model (`--lm`).
      case languageModel = "language model"
      /// The pronunciation dictionary (`--dict`).
      case dictionary
      /// The JSGF grammar (`--grammar`).
      case grammar
    }

    /// Whether the failure is about the audio device rather than the model or a file.
    public var isAudioDeviceProblem: Bool {
      switch self {
      case .audioServerUnreachable, .captureSourceMissing, .captureSourceNotFound,
        .audioDeviceFailed:
        true
      default: false
      }
    }
  }
}

extension SpeechClient: TestDependencyKey {
  /// The lorem client (see ``lorem(words:)``): no audio server, no model.
  public static var previewValue: SpeechClient { .lorem() }

  /// Every endpoint fails the test when called without an override, naming itself.
  public static var testValue: SpeechClient {
    SpeechClient(
      requestAuthorization: unimplemented(
        "SpeechClient.requestAuthorization", placeholder: .notDetermined),
      startTask: unimplemented(
        "SpeechClient.startTask", placeholder: AsyncThrowingStream { $0.finish() }),
      finishTask: unimplemented("SpeechClient.finishTask")
    )
  }
}

extension DependencyValues {
  /// The speech-recognition client.
  public var speechClient: SpeechClient {
    get { self[SpeechClient.self] }
    set { self[SpeechClient.self] = newValue }
  }
}
