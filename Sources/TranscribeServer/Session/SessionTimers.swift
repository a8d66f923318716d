import Architecture
import Foundation

/// The one rule for a streaming session's time, whatever its protocol: how long it may idle,
/// how long it may last, and how long its last words may take. ``VoskSession``,
/// ``WyomingSession`` and ``RealtimeSession`` all keep time with it.
///
/// - **Idle**: the idle timeout (``ServerConfiguration/idleTimeout``) starts with the session,
///   and only audio starts it again, once ``ServerConfiguration/idleRenewalAudio`` of it has
///   arrived since it last started. Nothing else renews it (a configuration, `describe`, `ping`):
///   a client sending those, or a trickle of tiny audio messages, holds its place no longer than
///   a silent one. When it elapses, ``idleProblem(_:)`` says which limit it was: no audio at
///   all, or too little.
/// - **Maximum length**: ``ServerConfiguration/maxSessionDuration`` from the start.
/// - **Last words**: once the audio is over the last words get ``ServerConfiguration/finalWait``
///   (bounded by the shutdown grace period when the server shuts down).
///
/// Each timer is a cancellable effect on `@Dependency(\.continuousClock)` that replaces the one
/// before it, so nothing accumulates however many messages a session gets. The reducer keeps
/// the rule's values in its state (``IdleAudio``) and receives the timers' actions as its own.
///
/// ```swift
/// let timers = SessionTimers(limits: limits, idle: .idleTimeoutElapsed,
///   maxDuration: .maxDurationElapsed, finalWait: .finalWaitElapsed)
/// return timers.start()                                        // on `.start`
/// return timers.audioArrived(&state.idleAudio, .seconds(0.2))  // on audio
/// ```
struct SessionTimers<Action: Sendable>: Sendable {
  /// The timers, as cancellation identifiers: the same whatever the session's action type, so
  /// a session and the ``StreamSession`` inside it stop each other's timers.
  typealias Timer = SessionTimer

  /// The limits the session runs under.
  let limits: ServerConfiguration
  /// What each timer sends when it elapses.
  let idleElapsed: Action
  let maxDurationElapsed: Action
  let finalWaitElapsed: Action

  @Dependency(\.continuousClock) var clock

  init(
    limits: ServerConfiguration, idle: Action, maxDuration: Action, finalWait: Action
  ) {
    self.limits = limits
    self.idleElapsed = idle
    self.maxDurationElapsed = maxDuration
    self.finalWaitElapsed = finalWait
  }

  /// The session began: the idle and maximum-length timers start.
  func start() -> Effect<Action> {
    .merge(
      after(limits.maxSessionDuration, send: maxDurationElapsed, id: Timer.maxDuration),
      after(limits.idleTimeout, send: idleElapsed, id: Timer.idle))
  }

  /// Counts `duration` of audio towards the idle time: once ``ServerConfiguration/idleRenewalAudio``
  /// of it has arrived since the idle timeout started, it starts again.
  func audioArrived(_ idle: inout IdleAudio, _ duration: Duration) -> Effect<Action> {
    idle.received += duration
    guard idle.received >= limits.idleRenewalAudio else { return .none }
    idle.received = .zero
    return after(limits.idleTimeout, send: idleElapsed, id: Timer.idle)
  }

  /// Which limit the idle timeout that just elapsed was, from the audio received since it
  /// last started: none at all (``SessionProblem/idle(_:)``), or too little.
  func idleProblem(_ idle: IdleAudio) -> SessionProblem {
    guard idle.received > .zero else { return .idle(limits.idleTimeout) }
    return .tooLittleAudio(
      received: idle.received, within: limits.idleTimeout, renewal: limits.idleRenewalAudio)
  }

  /// The audio is over: the last words are awaited for ``ServerConfiguration/finalWait``, or
  /// within the shutdown grace period when the server is shutting down.
  func awaitLastWords(shuttingDown: Bool) -> Effect<Action> {
    let wait =
      shuttingDown ? min(limits.shutdownGracePeriod, limits.finalWait) : limits.finalWait
    return after(wait, send: finalWaitElapsed, id: Timer.finalWait)
  }

  /// Stops one timer.
  func stop(_ timer: Timer) -> Effect<Action> {
    .cancel(id: timer)
  }

  /// Stops the limits (idle and maximum length); the wait for the last words goes on.
  func stopLimits() -> Effect<Action> {
    .merge(.cancel(id: Timer.idle), .cancel(id: Timer.maxDuration))
  }

  /// Stops every timer: the session is over.
  func stopAll() -> Effect<Action> {
    .merge(.cancel(id: Timer.idle), .cancel(id: Timer.maxDuration), .cancel(id: Timer.finalWait))
  }

  /// Sends `action` once `duration` has passed on the session's clock; a timer started again
  /// with the same `id` replaces the one running, and cancelling `id` stops it (a protocol's own
  /// timers, such as vosk's reply deadline, use it too).
  func after<ID: Hashable & Sendable>(
    _ duration: Duration, send action: Action, id: ID
  ) -> Effect<Action> {
    .run { [clock] send in
      try await clock.sleep(for: duration)
      await send(action)
    }
    .cancellable(id: id, cancelInFlight: true)
  }
}

/// The audio a session received since its idle timeout last started (``SessionTimers``): a
/// value in the session's state.
struct IdleAudio: Equatable, Sendable {
  /// How much audio, in time at its own sample rate.
  var received = Duration.zero

  /// The duration of `samples` samples at `sampleRate` Hz.
  static func duration(samples: Int, sampleRate: Int) -> Duration {
    .nanoseconds(Int64(samples) * 1_000_000_000 / Int64(max(1, sampleRate)))
  }
}

/// A timer of ``SessionTimers``, as its cancellation identifier.
enum SessionTimer: Hashable, Sendable { case idle, maxDuration, finalWait }
