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
/// let authorization = await speechClient.requestAuthorization()
/// guard authorization.status == .authorized else { return }
/// for try await result in await speechClient.startTask(SpeechRecognitionRequest()) {
///   print(result.bestTranscription.formattedString)
/// }
/// ```
@DependencyClient
public struct SpeechClient: Sendable {
  /// Checks that recognition can run: the audio server and capture source are reachable and
  /// the model is present. The answer carries the reason when it is not
  /// ``AuthorizationStatus/authorized`` (see ``Authorization``).
  public var requestAuthorization: @Sendable () async -> Authorization = { .notDetermined }
  /// Starts recognizing; results arrive on the stream until it finishes or fails with a
  /// ``Failure``.
  public var startTask:
    @Sendable (SpeechRecognitionRequest) async -> AsyncThrowingStream<
      SpeechRecognitionResult, any Error
    > = { _ in AsyncThrowingStream { $0.finish() } }
  /// Stops listening, delivers the last words as a final result, and finishes the stream.
  public var finishTask: @Sendable () async -> Void
  /// The capture sources recognition can listen to (`transcribe --list-devices`).
  ///
  /// - Throws: a ``Failure`` when the audio server cannot be reached.
  public var captureDevices: @Sendable () async throws -> [CaptureDevice]

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

  /// The answer to ``requestAuthorization``: the status, and why it is not authorized.
  ///
  /// The static members read like the status itself, so a test can write
  /// `$0.speechClient.requestAuthorization = { .denied }`.
  public struct Authorization: Equatable, Sendable {
    /// Whether recognition may run.
    public var status: AuthorizationStatus
    /// Why it may not: the failure a task would end with, naming the server, source or file.
    public var reason: Failure?

    /// Creates an answer.
    public init(status: AuthorizationStatus, reason: Failure? = nil) {
      self.status = status
      self.reason = reason
    }

    /// Recognition may run.
    public static let authorized = Self(status: .authorized)
    /// Access was refused, for no reason given.
    public static let denied = Self(status: .denied)
    /// Recognition cannot run here, for no reason given.
    public static let restricted = Self(status: .restricted)
    /// Whether recognition may run could not be checked.
    public static let notDetermined = Self(status: .notDetermined)

    /// Access was refused, for this reason.
    public static func denied(_ reason: Failure) -> Self {
      Self(status: .denied, reason: reason)
    }

    /// Recognition cannot run here, for this reason.
    public static func restricted(_ reason: Failure) -> Self {
      Self(status: .restricted, reason: reason)
    }
  }
}

extension SpeechClient: TestDependencyKey {
  /// The lorem client (see ``lorem(words:)``): no audio server, no model.
  public static var previewValue: SpeechClient { .lorem() }

  /// Every endpoint fails the test when called without an override, naming itself
  /// (`SpeechClient.startTask`); see `@DependencyClient`.
  public static let testValue = SpeechClient()
}

extension DependencyValues {
  /// The speech-recognition client.
  public var speechClient: SpeechClient {
    get { self[SpeechClient.self] }
    set { self[SpeechClient.self] = newValue }
  }
}
