import Architecture
import SpeechClient

/// The speech-recognition feature: record, transcribe, stop.
///
/// The flow follows the Speech recognition demo of the Composable Architecture on iOS, on Linux:
/// tapping record asks ``SpeechClient/requestAuthorization``; if authorized it starts a
/// recognition task and feeds every result into the state; tapping again calls
/// ``SpeechClient/finishTask``, after which the final words arrive and recording ends when the
/// recognition stream does (a failure right after the final words is still seen). Denied or
/// restricted access and failures end recording with an alert.
///
/// ```swift
/// let store = Store(initialState: SpeechRecognition.State()) {
///   SpeechRecognition()
/// }
/// store.send(.recordButtonTapped)
/// ```
public struct SpeechRecognition: Reducer, Sendable {
  /// The feature's state.
  public struct State: Equatable, Sendable {
    /// What to recognize: the audio source and model.
    public var request: SpeechRecognitionRequest
    /// Whether audio is being recognized (from the tap until the last result or a failure).
    public var isRecording = false
    /// The whole transcript so far: finished utterances and the current partial.
    public var transcribedText = ""
    /// The latest result, with segments and timing.
    public var result: SpeechRecognitionResult?
    /// An alert to show, if any.
    public var alert: Alert?
    /// Why recognition failed, if it did.
    public var failure: SpeechClient.Failure?

    /// Creates the state for a request (by default, the default microphone and model).
    public init(request: SpeechRecognitionRequest = SpeechRecognitionRequest()) {
      self.request = request
    }
  }

  /// An alert: a title and a message.
  public struct Alert: Equatable, Sendable {
    /// The headline.
    public var title: String
    /// What happened and what to do.
    public var message: String

    /// Creates an alert.
    public init(title: String, message: String) {
      self.title = title
      self.message = message
    }

    /// Shown when the audio server refused access.
    public static let denied = Alert(
      title: "Speech recognition was denied",
      message: "The audio server refused access to the microphone. Check its permissions.")
    /// Shown when there is no capture source or no model.
    public static let restricted = Alert(
      title: "Speech recognition is not available",
      message: "There is no capture source or the speech model is missing on this machine.")
    /// Shown when authorization could not be determined.
    public static let notDetermined = Alert(
      title: "Speech recognition has not been set up",
      message: "Could not check the audio server and model. Try again.")
    /// Shown when the audio device failed.
    public static let audioDeviceProblem = Alert(
      title: "Problem with audio device",
      message: "Please try again.")
    /// Shown when recognition failed for another reason.
    public static let transcriptionFailed = Alert(
      title: "An error occurred while transcribing",
      message: "Please try again.")
  }

  /// The feature's actions.
  @CasePathable
  public enum Action: Equatable, Sendable {
    /// The record button was tapped: start, or stop if recording.
    case recordButtonTapped
    /// The answer to ``SpeechClient/requestAuthorization``.
    case authorizationResponse(SpeechClient.AuthorizationStatus)
    /// A recognition result, or the failure that ended the task.
    case speech(Result<SpeechRecognitionResult, SpeechClient.Failure>)
    /// The recognition task's stream ended without a failure: recording is over.
    case recognitionFinished
    /// The alert was dismissed.
    case alertDismissed
  }

  enum CancelID { case recognition }

  @Dependency(\.speechClient) var speechClient

  /// Creates the reducer.
  public init() {}

  /// Record, authorize, transcribe, stop.
  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .recordButtonTapped:
        if state.isRecording {
          return .run { _ in
            await speechClient.finishTask()
          }
        }
        state.isRecording = true
        state.alert = nil
        state.failure = nil
        return .run { send in
          await send(.authorizationResponse(speechClient.requestAuthorization()))
        }

      case .authorizationResponse(let status):
        switch status {
        case .authorized:
          guard state.isRecording else { return .none }
          let request = state.request
          return .run { send in
            for try await result in await speechClient.startTask(request) {
              await send(.speech(.success(result)))
            }
            await send(.recognitionFinished)
          } catch: { error, send in
            await send(.speech(.failure(SpeechClient.Failure(error))))
          }
          .cancellable(id: CancelID.recognition, cancelInFlight: true)
        case .denied:
          state.isRecording = false
          state.alert = .denied
        case .restricted:
          state.isRecording = false
          state.alert = .restricted
        case .notDetermined:
          state.isRecording = false
          state.alert = .notDetermined
        }
        return .none

      case .speech(.success(let result)):
        state.transcribedText = result.bestTranscription.formattedString
        state.result = result
        return .none

      case .recognitionFinished:
        state.isRecording = false
        return .none

      case .speech(.failure(let failure)):
        state.isRecording = false
        state.failure = failure
        state.alert = failure.isAudioDeviceProblem ? .audioDeviceProblem : .transcriptionFailed
        return .cancel(id: CancelID.recognition)

      case .alertDismissed:
        state.alert = nil
        return .none
      }
    }
  }
}

extension SpeechClient.Failure {
  /// Wraps any error as a failure; errors that are not a ``SpeechClient/Failure`` become
  /// ``decoderFailure(_:)`` with their description.
  public init(_ error: any Error) {
    if let failure = error as? SpeechClient.Failure {
      self = failure
    } else {
      self = .decoderFailure(String(describing: error))
    }
  }
}
