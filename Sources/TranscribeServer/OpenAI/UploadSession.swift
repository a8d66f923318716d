import Architecture
import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// The recognition of one upload, as a reducer: ``SpeechRecognition`` on the uploaded file,
/// bounded by the client's presence and the session's time.
///
/// The HTTP handler reads the body to a file, then runs this session and sends what happens to
/// it: ``Action/clientLeft`` when the connection closes. The session ends when recognition
/// has an outcome, when the client leaves (recognition is cancelled at once: the decoder stops
/// and goes back to the pool), when ``timeLimit`` passes on `@Dependency(\.continuousClock)`
/// (cancelled too), or when the server shuts down and recognition has not finished within
/// ``shutdownGracePeriod`` after ``Action/shutdown`` (cancelled too).
@Reducer
struct UploadSession: Sendable {
  struct State: Equatable {
    var recognition: SpeechRecognition.State
    /// How the session ended, once it has.
    var ending: Ending?

    init(request: SpeechRecognitionRequest) {
      recognition = SpeechRecognition.State(request: request)
    }
  }

  /// How an upload's recognition ended.
  enum Ending: Equatable, Sendable {
    /// Recognition reached an outcome (see ``SpeechRecognition/State/outcome``).
    case recognized
    /// The client closed the connection first.
    case clientGone
    /// The session's time ran out first.
    case tooLong
    /// The server shut down and the grace period passed first.
    case shutdown
  }

  enum Action: Equatable, Sendable {
    /// Recognition starts, and the session's clock with it.
    case start
    /// The client closed the connection.
    case clientLeft
    /// The session's time is up.
    case timeLimitElapsed
    /// The server is shutting down: recognition has the grace period left.
    case shutdown
    /// The grace period after the shutdown is over.
    case shutdownGraceElapsed
    case recognition(SpeechRecognition.Action)
  }

  enum CancelID { case timeLimit, shutdownGrace }

  /// The longest recognition may run.
  let timeLimit: Duration
  /// How long recognition may go on once the server shuts down.
  var shutdownGracePeriod = Duration.seconds(10)

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Scope(state: \.recognition, action: \.recognition) {
      SpeechRecognition()
    }
    Reduce { state, action in
      switch action {
      case .start:
        return .merge(
          .send(.recognition(.start)),
          .run { [timeLimit] send in
            try await clock.sleep(for: timeLimit)
            await send(.timeLimitElapsed)
          }
          .cancellable(id: CancelID.timeLimit))

      case .recognition:
        guard state.ending == nil, state.recognition.outcome != nil else { return .none }
        state.ending = .recognized
        return .merge(.cancel(id: CancelID.timeLimit), .cancel(id: CancelID.shutdownGrace))

      case .clientLeft:
        return end(&state, .clientGone)

      case .timeLimitElapsed:
        return end(&state, .tooLong)

      case .shutdown:
        guard state.ending == nil else { return .none }
        return .run { [grace = shutdownGracePeriod] send in
          try await clock.sleep(for: grace)
          await send(.shutdownGraceElapsed)
        }
        .cancellable(id: CancelID.shutdownGrace, cancelInFlight: true)

      case .shutdownGraceElapsed:
        return end(&state, .shutdown)
      }
    }
  }

  private func end(_ state: inout State, _ ending: Ending) -> Effect<Action> {
    guard state.ending == nil else { return .none }
    state.ending = ending
    return .merge(
      .cancel(id: CancelID.timeLimit), .cancel(id: CancelID.shutdownGrace),
      .send(.recognition(.cancel)))
  }
}
