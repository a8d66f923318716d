import Synchronization

/// A session the ``SessionCore`` let in: its session place (and an upload's place among the
/// bodies being read), its registration for the shutdown, its log; given back once, whatever
/// path the session takes.
///
/// The place is counted in metrics while it is held: from ``takePlace()`` (or admission, for a
/// stream) to ``freePlace()`` or ``end(_:audioSeconds:)``, whichever comes first.
final class AdmittedSession: Sendable {
  /// The session's log: one line when it starts, one when it ends.
  let log: SessionLog
  private let core: SessionCore
  private let endpoint: String
  private let remoteAddress: String?

  private struct State {
    var place: SessionLimiter.Permit?
    var reading: SessionLimiter.Permit?
    var registration: Int?
    var isOver = false
  }

  private let state = Mutex(State())

  init(core: SessionCore, endpoint: String, remoteAddress: String?) {
    self.core = core
    self.endpoint = endpoint
    self.remoteAddress = remoteAddress
    self.log = SessionLog(core.logger, endpoint: endpoint, remoteAddress: remoteAddress)
  }

  /// Takes a session place, or refuses (counted and logged) when every one is taken.
  func takePlace() throws(AdmissionRefusal) {
    guard let permit = core.sessions.acquire() else {
      core.reject(.capacity, endpoint: endpoint, remoteAddress: remoteAddress)
      throw .capacity
    }
    let isRunning = state.withLock { state in
      state.place = permit
      return state.registration != nil
    }
    if isRunning { core.metrics.sessionStarted() }
  }

  /// Holds an upload's place among the bodies being read until the session ends.
  func holdReading(_ permit: SessionLimiter.Permit) {
    state.withLock { $0.reading = permit }
  }

  /// The session is registered for the shutdown: it has started.
  func started(registration: Int) {
    let hasPlace = state.withLock { state in
      state.registration = registration
      return state.place != nil
    }
    if hasPlace { core.metrics.sessionStarted() }
    log.started()
  }

  /// Gives the session place back (the session is over, though its last words may still be
  /// on their way); later calls do nothing.
  func freePlace() {
    let (place, isCounted) = state.withLock { state in
      defer { state.place = nil }
      return (state.place, state.registration != nil)
    }
    guard let place else { return }
    place.release()
    if isCounted { core.metrics.sessionEnded() }
  }

  /// Ends the session: frees what it holds, logs how it ended, and leaves the shutdown's
  /// list; later calls do nothing.
  func end(_ outcome: SessionOutcome, audioSeconds: Double) {
    let registration = state.withLock { state -> Int?? in
      guard !state.isOver else { return nil }
      state.isOver = true
      return .some(state.registration)
    }
    guard let registration else { return }
    freePlace()
    releaseReading()
    log.ended(outcome, audioSeconds: audioSeconds)
    core.metrics.sessionEnded(outcome)
    FreedMemory.release()
    if let registration { core.streams.unregister(registration) }
  }

  /// Gives back what an admission that failed took, without a log line (it is a rejection).
  func abandon() {
    state.withLock { $0.isOver = true }
    freePlace()
    releaseReading()
  }

  private func releaseReading() {
    let reading = state.withLock { state in
      defer { state.reading = nil }
      return state.reading
    }
    reading?.release()
  }
}
