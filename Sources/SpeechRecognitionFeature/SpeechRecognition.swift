import Architecture
import Foundation
import SpeechClient

/// The speech-recognition feature: record, transcribe, stop. It owns the whole session.
///
/// The flow follows the Speech recognition demo of the Composable Architecture on iOS, on Linux:
/// tapping record asks ``SpeechClient/requestAuthorization``; if authorized it starts a
/// recognition task and feeds every result into the state. Tapping again sets ``State/isRecording``
/// to `false` at once and calls ``SpeechClient/finishTask``; ``State/status`` stays
/// ``Status/finishing`` while the last words arrive, until the recognition stream ends. Denied or
/// restricted access and failures end recording with an alert.
///
/// Beyond the demo, the feature owns what a host needs to run a session unattended: a recording
/// limit (``State/duration``; live capture counts clock time, files count audio time), a deadline
/// for the last words after a stop (``stopDeadline``), progress (``State/progress``), and an
/// explicit ``State/outcome`` once the session is over. Time comes from
/// `@Dependency(\.continuousClock)`.
///
/// A feature that hosts this one (dictation, a server's session) acts on its delegate actions
/// only, never on its own: ``Delegate/heard(_:)`` for each result, ``Delegate/ended(_:)`` once
/// the session is over, however it ended.
///
/// ```swift
/// let store = Store(initialState: SpeechRecognition.State(duration: .seconds(5))) {
///   SpeechRecognition()
/// }
/// store.send(.recordButtonTapped)
/// ```
@Reducer
public struct SpeechRecognition: Sendable {
  /// The feature's state.
  @ObservableState
  public struct State: Equatable, Sendable {
    /// What to recognize: the audio source and model.
    public var request: SpeechRecognitionRequest
    /// How long to record: clock time for live capture; for an input that is read (a file,
    /// standard input), audio time, which the client keeps by reading no further (the request's
    /// ``SpeechRecognitionRequest/maximumAudioDuration``). `nil`: until stopped or the input
    /// ends.
    public var duration: Duration?
    /// Whether the user wants audio recognized: `true` from the tap that starts, `false` as soon
    /// as recording is stopped (the last words may still be arriving; see ``status``).
    public var isRecording = false
    /// Where the session is: authorizing, recording, finishing, or idle.
    public var status = Status.idle
    /// The latest result, with segments, timing and progress.
    public var result: SpeechRecognitionResult?
    /// An alert to show, if any.
    public var alert: Alert?
    /// Why recognition failed, if it did.
    public var failure: SpeechClient.Failure?
    /// How the last session ended; `nil` while one runs or before the first.
    public var outcome: Outcome?

    /// Creates the state for a request (by default, the default microphone and model) and an
    /// optional recording limit.
    public init(
      request: SpeechRecognitionRequest = SpeechRecognitionRequest(), duration: Duration? = nil
    ) {
      self.request = request
      self.duration = duration
    }

    /// The whole transcript so far: finished utterances and the current partial.
    ///
    /// Built from ``result`` when read (in time proportional to its length), so keeping the state
    /// up to date costs the same for every result of a long session.
    public var transcribedText: String {
      result?.bestTranscription.formattedString ?? ""
    }

    /// How far recognition has got through the audio, when the client reports it.
    public var progress: RecognitionProgress? {
      result?.progress
    }
  }

  /// Where a session is.
  public enum Status: Equatable, Sendable {
    /// No session runs.
    case idle
    /// Waiting for ``SpeechClient/requestAuthorization``.
    case authorizing
    /// Authorized; the recognition task is starting.
    case starting
    /// The task runs and results arrive.
    case recording
    /// Stopped: the client was asked to finish and the last words are still coming.
    case finishing
  }

  /// How a session ended.
  public enum Outcome: Equatable, Sendable {
    /// The recognition stream ended: the input ended or recording was stopped, and every word
    /// was delivered.
    case finished
    /// Stopped while authorization was being checked (recording never started), or abandoned
    /// with ``Action/cancel`` (the words heard before are in the result).
    case cancelled
    /// Recognition may not run here; the answer says why when the client knows.
    case notAuthorized(SpeechClient.Authorization)
    /// Recognition failed; the words heard before are in the result.
    case failed(SpeechClient.Failure)
    /// After a stop, the client did not deliver its last words within ``stopDeadline``.
    case stopTimedOut
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
  public enum Action: Equatable, Sendable {
    /// The record button was tapped: start, or stop if recording.
    case recordButtonTapped
    /// Start recognizing (a host without a button: a server's session); nothing once started.
    case start
    /// Stop and deliver the last words (a host without a button: the end of a stream's audio);
    /// nothing when idle or already finishing.
    case finish
    /// The answer to ``SpeechClient/requestAuthorization``.
    case authorizationResponse(SpeechClient.Authorization)
    /// ``SpeechClient/startTask`` returned: the task runs and can be finished.
    case recognitionStarted
    /// A recognition result, or the failure that ended the task.
    case speech(Result<SpeechRecognitionResult, SpeechClient.Failure>)
    /// The recognition task's stream ended without a failure: the session is over.
    case recognitionFinished
    /// ``State/duration`` of clock time has passed since recording started.
    case durationElapsed
    /// ``stopDeadline`` has passed since the stop without the stream ending.
    case stopDeadlineElapsed
    /// The alert was dismissed.
    case alertDismissed
    /// Abandons the session at once, without waiting for the last words: every effect is
    /// cancelled, so the client stops decoding (for example, a server's client went away).
    case cancel
    /// What the feature tells the feature that hosts it (``Delegate``): a parent acts on these,
    /// never on the feature's own actions.
    case delegate(Delegate)
  }

  /// What a host's reducer learns from the feature.
  @CasePathable
  public enum Delegate: Equatable, Sendable {
    /// A result arrived: the words so far, finished utterances first, and the decoder's
    /// progress (``State/result`` holds it too).
    case heard(SpeechRecognitionResult)
    /// The session is over, as ``State/outcome`` says: finished, cancelled, not authorized,
    /// failed, or its last words late.
    case ended(Outcome)
  }

  enum CancelID { case authorization, recognition, duration, stopDeadline }

  @Dependency(\.speechClient) var speechClient
  @Dependency(\.continuousClock) var clock

  /// How long the client may take to deliver its last words after a stop.
  public let stopDeadline: Duration

  /// Creates the reducer; `stopDeadline` bounds the wait for the last words after a stop.
  public init(stopDeadline: Duration = .seconds(10)) {
    self.stopDeadline = stopDeadline
  }

  /// Record, authorize, transcribe, stop.
  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .recordButtonTapped:
        return toggleRecording(&state)

      case .start:
        guard state.status == .idle else { return .none }
        return toggleRecording(&state)

      case .finish:
        guard state.status != .idle else { return .none }
        return toggleRecording(&state)

      case .authorizationResponse(let authorization):
        guard state.status == .authorizing else { return .none }
        guard authorization.status == .authorized else {
          switch authorization.status {
          case .denied: state.alert = .denied
          case .restricted: state.alert = .restricted
          case .notDetermined, .authorized: state.alert = .notDetermined
          }
          return end(&state, .notAuthorized(authorization))
        }
        state.status = .starting
        var request = state.request
        if !request.source.isLive, let duration = state.duration {
          // A file's limit is audio time: the client reads no further than that.
          request.maximumAudioDuration = min(request.maximumAudioDuration ?? duration, duration)
        }
        return .run { [request] send in
          let results = await speechClient.startTask(request)
          await send(.recognitionStarted)
          for try await result in results {
            await send(.speech(.success(result)))
          }
          await send(.recognitionFinished)
        } catch: { error, send in
          await send(.speech(.failure(SpeechClient.Failure(error))))
        }
        .cancellable(id: CancelID.recognition, cancelInFlight: true)

      case .recognitionStarted:
        switch state.status {
        case .starting:
          state.status = .recording
          guard let duration = state.duration, state.request.source.isLive else { return .none }
          return .run { send in
            try await clock.sleep(for: duration)
            await send(.durationElapsed)
          }
          .cancellable(id: CancelID.duration, cancelInFlight: true)
        case .finishing:
          // Stopped while starting: finish now that there is a task.
          return finish()
        case .idle, .authorizing, .recording:
          return .none
        }

      case .speech(.success(let result)):
        state.result = result
        return .send(.delegate(.heard(result)))

      case .speech(.failure(let failure)):
        state.failure = failure
        state.alert = failure.isAudioDeviceProblem ? .audioDeviceProblem : .transcriptionFailed
        return .merge(
          .cancel(id: CancelID.recognition),
          .cancel(id: CancelID.duration),
          .cancel(id: CancelID.stopDeadline),
          end(&state, .failed(failure))
        )

      case .recognitionFinished:
        return .merge(
          .cancel(id: CancelID.duration), .cancel(id: CancelID.stopDeadline),
          end(&state, .finished))

      case .durationElapsed:
        guard state.status == .recording else { return .none }
        return stop(&state)

      case .stopDeadlineElapsed:
        guard state.status == .finishing else { return .none }
        return .merge(.cancel(id: CancelID.recognition), end(&state, .stopTimedOut))

      case .alertDismissed:
        state.alert = nil
        return .none

      case .cancel:
        guard state.status != .idle else { return .none }
        return .merge(
          .cancel(id: CancelID.authorization),
          .cancel(id: CancelID.recognition),
          .cancel(id: CancelID.duration),
          .cancel(id: CancelID.stopDeadline),
          end(&state, .cancelled)
        )

      case .delegate:
        return .none
      }
    }
  }

  /// Ends the session with `outcome` and tells the host (``Delegate/ended(_:)``).
  private func end(_ state: inout State, _ outcome: Outcome) -> Effect<Action> {
    state.isRecording = false
    state.status = .idle
    state.outcome = outcome
    return .send(.delegate(.ended(outcome)))
  }

  /// Stops recording: `isRecording` turns false at once, the last words keep coming.
  /// Starts when idle; otherwise stops (what the record button does).
  private func toggleRecording(_ state: inout State) -> Effect<Action> {
    switch state.status {
    case .idle:
      state.isRecording = true
      state.status = .authorizing
      state.alert = nil
      state.failure = nil
      state.outcome = nil
      return .run { send in
        await send(.authorizationResponse(speechClient.requestAuthorization()))
      }
      .cancellable(id: CancelID.authorization)
    case .authorizing:
      // Stopped before anything started: recording never starts.
      return .merge(.cancel(id: CancelID.authorization), end(&state, .cancelled))
    case .starting:
      // The client can only finish a task that has started; see `.recognitionStarted`.
      state.isRecording = false
      state.status = .finishing
      return .none
    case .recording:
      return stop(&state)
    case .finishing:
      return .none
    }
  }

  private func stop(_ state: inout State) -> Effect<Action> {
    state.isRecording = false
    state.status = .finishing
    return .merge(.cancel(id: CancelID.duration), finish())
  }

  /// Asks the client to finish, and gives it ``stopDeadline`` to deliver the last words.
  private func finish() -> Effect<Action> {
    let deadline = stopDeadline
    return .merge(
      .run { _ in await speechClient.finishTask() },
      .run { send in
        try await clock.sleep(for: deadline)
        await send(.stopDeadlineElapsed)
      }
      .cancellable(id: CancelID.stopDeadline, cancelInFlight: true)
    )
  }
}
