import Architecture
import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// One upload from its first byte to its answer, as a reducer: the body arriving, then
/// ``SpeechRecognition`` on the file it was written to, bounded by the client's presence, the
/// pace of the body, the session's time and a shutdown.
///
/// The host reads the body and says how that went (``Action/bodyReceived(_:)``, or
/// ``Action/bodyRejected(_:)`` with the error that answers the client), and reports what
/// happens around it: ``Action/clientLeft`` when the connection closes,
/// ``Action/bodyTooSlow`` when the body falls behind the slowest pace allowed,
/// ``Action/shutdown`` when the server begins to shut down. Everything else is decided here:
/// - the session's time, ``timeLimit`` on `@Dependency(\.continuousClock)`, runs from
///   ``Action/start`` over the body and recognition together;
/// - while the body arrives, the client leaving, a slow body, the time limit and a shutdown
///   each end the session at once (the host stops reading);
/// - during recognition, the client leaving and the time limit end it at once and cancel
///   recognition (the decoder stops and goes back to the pool); a shutdown leaves recognition
///   ``shutdownGracePeriod`` to finish, then cancels it;
/// - recognition's outcome ends it ``Ending/recognized``.
@Reducer
struct UploadSession: Sendable {
  struct State: Equatable {
    /// Recognition of the uploaded file, once the body is in.
    var recognition: SpeechRecognition.State?
    /// How the session ended, once it has.
    var ending: Ending?

    /// A session whose body is still to arrive.
    init() {}

    /// A session whose body is in already, to be recognized with `request`.
    init(request: SpeechRecognitionRequest) {
      recognition = SpeechRecognition.State(request: request)
    }
  }

  /// How an upload ended.
  enum Ending: Equatable, Sendable {
    /// Recognition reached an outcome (see ``SpeechRecognition/State/outcome``).
    case recognized
    /// The client closed the connection first.
    case clientGone
    /// The session's time ran out first.
    case tooLong
    /// The server shut down: while the body arrived, or after the grace period.
    case shutdown
    /// The body arrived more slowly than allowed.
    case tooSlow
    /// The body could not be taken; the error answers the client.
    case rejected(OpenAIError)
  }

  enum Action: Equatable, Sendable {
    /// The session's clock starts, and recognition with it when the body is in already.
    case start
    /// The body is in and checked: recognition starts with this request.
    case bodyReceived(SpeechRecognitionRequest)
    /// The body cannot be taken, for this reason.
    case bodyRejected(OpenAIError)
    /// The body fell behind the slowest pace allowed.
    case bodyTooSlow
    /// The client closed the connection.
    case clientLeft
    /// The session's time is up.
    case timeLimitElapsed
    /// The server is shutting down.
    case shutdown
    /// The grace period after the shutdown is over.
    case shutdownGraceElapsed
    case recognition(SpeechRecognition.Action)
  }

  enum CancelID { case timeLimit, shutdownGrace }

  /// The longest the session may run, body and recognition together.
  let timeLimit: Duration
  /// How long recognition may go on once the server shuts down.
  var shutdownGracePeriod = ServerConfiguration().shutdownGracePeriod

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .start:
        let timer = Effect<Action>.run { [timeLimit] send in
          try await clock.sleep(for: timeLimit)
          await send(.timeLimitElapsed)
        }
        .cancellable(id: CancelID.timeLimit)
        guard state.recognition != nil else { return timer }
        return .merge(.send(.recognition(.start)), timer)

      case .bodyReceived(let request):
        guard state.ending == nil, state.recognition == nil else { return .none }
        state.recognition = SpeechRecognition.State(request: request)
        return .send(.recognition(.start))

      case .bodyRejected(let error):
        return end(&state, .rejected(error))

      case .bodyTooSlow:
        guard state.recognition == nil else { return .none }
        return end(&state, .tooSlow)

      case .recognition(.delegate(.ended)):
        guard state.ending == nil else { return .none }
        state.ending = .recognized
        return .merge(.cancel(id: CancelID.timeLimit), .cancel(id: CancelID.shutdownGrace))

      case .recognition:
        return .none

      case .clientLeft:
        return end(&state, .clientGone)

      case .timeLimitElapsed:
        return end(&state, .tooLong)

      case .shutdown:
        guard state.ending == nil else { return .none }
        // A body still arriving could not be decoded in time anyway.
        guard state.recognition != nil else { return end(&state, .shutdown) }
        return .run { [grace = shutdownGracePeriod] send in
          try await clock.sleep(for: grace)
          await send(.shutdownGraceElapsed)
        }
        .cancellable(id: CancelID.shutdownGrace, cancelInFlight: true)

      case .shutdownGraceElapsed:
        return end(&state, .shutdown)
      }
    }
    .ifLet(\.recognition, action: \.recognition) {
      SpeechRecognition()
    }
  }

  private func end(_ state: inout State, _ ending: Ending) -> Effect<Action> {
    guard state.ending == nil else { return .none }
    state.ending = ending
    let stopTimers = Effect<Action>.merge(
      .cancel(id: CancelID.timeLimit), .cancel(id: CancelID.shutdownGrace))
    guard state.recognition != nil else { return stopTimers }
    return .merge(stopTimers, .send(.recognition(.cancel)))
  }
}
