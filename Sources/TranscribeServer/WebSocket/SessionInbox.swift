import HummingbirdWebSocket
import SpeechRecognitionFeature
import Synchronization

/// Everything a WebSocket stream reacts to, in one queue its session reads one event at a time:
/// the client's messages, the store's states, timers and the server's shutdown.
///
/// Messages are read from the socket only on demand (``allowNextMessage()``), so a session that
/// waits for its decoder stops reading and the client's sends wait in TCP's buffers: nothing
/// queues here without bound. States are coalesced (only the newest matters), and the other
/// events are few.
final class SessionInbox: Sendable {
  enum Event: Sendable {
    /// A message from the client.
    case message(WebSocketMessage)
    /// The client closed the stream or the connection went away.
    case inboundEnded
    /// Reading failed (e.g. a message over the protocol's limit).
    case inboundFailed(any Error)
    /// The store's newest state.
    case state(SpeechRecognition.State)
    /// The wait for the decoder before reply `number` is over.
    case replyDeadline(Int)
    /// No message arrived for the idle timeout; `generation` tells stale timers apart.
    case idle(generation: Int)
    /// The session reached its maximum length.
    case sessionTooLong
    /// The server is shutting down.
    case shutdown
    /// Waiting for the last words is over.
    case finalDeadline
  }

  private struct State {
    var state: SpeechRecognition.State?
    var controls: [Event] = []
    var message: Event?
    var waiter: CheckedContinuation<Event?, Never>?
    var demand = 1
    var reader: CheckedContinuation<Bool, Never>?
    var isClosed = false
  }

  private let state = Mutex(State())

  /// Adds an event and wakes the session.
  func post(_ event: Event) {
    let wake: (CheckedContinuation<Event?, Never>, Event)? = state.withLock { state in
      guard !state.isClosed else { return nil }
      switch event {
      case .state(let newest): state.state = newest
      case .message, .inboundEnded, .inboundFailed: state.message = event
      default: state.controls.append(event)
      }
      guard let waiter = state.waiter, let next = Self.take(&state) else { return nil }
      state.waiter = nil
      return (waiter, next)
    }
    if let (waiter, next) = wake { waiter.resume(returning: next) }
  }

  /// The next event, waiting for one; `nil` once closed or cancelled.
  func next() async -> Event? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let ready: Event?? = state.withLock { state in
          if let next = Self.take(&state) { return .some(next) }
          if state.isClosed || Task.isCancelled { return .some(nil) }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      close()
    }
  }

  /// Lets the reader take one more message from the socket.
  func allowNextMessage() {
    let reader = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard let reader = state.reader else {
        state.demand = 1
        return nil
      }
      state.reader = nil
      return reader
    }
    reader?.resume(returning: true)
  }

  /// For the reader: waits until the session wants another message; false once closed.
  func waitForDemand() async -> Bool {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let ready: Bool? = state.withLock { state in
          if state.isClosed || Task.isCancelled { return false }
          if state.demand > 0 {
            state.demand = 0
            return true
          }
          state.reader = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      close()
    }
  }

  /// Ends the queue: waiting calls return, later events are dropped.
  func close() {
    let (waiter, reader) = state.withLock { state in
      state.isClosed = true
      defer {
        state.waiter = nil
        state.reader = nil
      }
      return (state.waiter, state.reader)
    }
    waiter?.resume(returning: nil)
    reader?.resume(returning: false)
  }

  /// The next event by priority: the newest state, then timers and shutdown, then a message.
  private static func take(_ state: inout State) -> Event? {
    if let newest = state.state {
      state.state = nil
      return .state(newest)
    }
    if !state.controls.isEmpty { return state.controls.removeFirst() }
    if let message = state.message {
      state.message = nil
      return message
    }
    return nil
  }
}
