import Architecture
import Foundation

/// The host loop every streaming protocol shares: it runs a session's store and does what its
/// state says, whatever the transport. ``VoskStream``, ``RealtimeStream`` and
/// ``WyomingConnection`` each say only what differs: how a message becomes an action, how an
/// output is written, and what they measure.
///
/// The loop is one task group:
/// - a reader, reading a message only while the state's allowance lets it
///   (``allowedMessages``), each turned into an action; the end of the messages is one action
///   and a failure to read another (the failure is returned, for the protocol layer to close
///   with the code it stands for);
/// - a watcher for the client leaving (when the transport tells, ``ClientConnection``) and one
///   for the server shutting down;
/// - this task, writing the state's ``outbox`` in order and acknowledging what it wrote with
///   ``acknowledge``, until the session has ended (``ending``) and everything is written. The
///   session's place is freed as soon as it has ended, before the client learns it; a failure
///   to write means the client is gone.
///
/// ```swift
/// let host = SessionHost(store: store, outbox: \.outbox, written: \.written,
///   allowedMessages: \.allowedMessages, ending: \.ending, start: .start,
///   acknowledge: { .written(through: $0) }, clientLeft: .clientLeft, shutdown: .shutdown)
/// let (final, readFailure) = await host.run(messages, reading: reading, session: session,
///   shutdownNotice: notice, connection: connection) { output, state in … }
/// ```
struct SessionHost<State: Sendable, Action: Sendable, Output, Ending> {
  /// How the host turns what it reads into actions.
  struct Reading<Message>: Sendable {
    /// The action for a message, and whether it is the last the host reads.
    var message: @Sendable (Message) -> (action: Action, isLast: Bool)
    /// The action once the client has sent its last message.
    var end: Action
    /// The action when reading fails.
    var failure: @Sendable (any Error) -> Action
  }

  /// The session's store.
  let store: Store<State, Action>
  /// What to write, in order, not acknowledged yet.
  let outbox: KeyPath<State, [Output]>
  /// How many outputs the session knows were written.
  let written: KeyPath<State, Int>
  /// How many messages the host may have read so far.
  let allowedMessages: KeyPath<State, Int>
  /// How the session ended, once it has.
  let ending: KeyPath<State, Ending?>
  /// The action that starts the session (its timers).
  let start: Action
  /// The action saying how many outputs the host has written in all.
  let acknowledge: @Sendable (Int) -> Action
  /// The action for a client that is gone (it left, or could not be written to).
  let clientLeft: Action
  /// The action for the server shutting down.
  let shutdown: Action

  /// Runs the session until it is over: reads `messages` as `reading` says, writes each
  /// output with `write` (given the state it is in), and lets `observe` see every state the
  /// host sees. Returns the final state, and why reading failed if it did.
  func run<Messages: AsyncSequence & Sendable>(
    _ messages: Messages, reading: Reading<Messages.Element>, session: AdmittedSession,
    shutdownNotice: ClientConnection, connection: ClientConnection?,
    observe: (State) -> Void = { _ in },
    write: (Output, State) async throws -> Void
  ) async -> (final: State, readFailure: (any Error)?) {
    let store = self.store
    let (clientLeft, shutdown) = (self.clientLeft, self.shutdown)
    let (allowances, allowance) = AsyncStream.makeStream(
      of: Int.self, bufferingPolicy: .bufferingNewest(1))
    let states = await store.states(bufferingPolicy: .bufferingNewest(1))
    _ = await store.send(start)

    let readFailure = await withTaskGroup(of: (any Error)?.self) { group in
      group.addTask {
        var iterator = messages.makeAsyncIterator()
        var read = 0
        for await allowed in allowances {
          while read < allowed {
            read += 1
            do {
              guard let message = try await iterator.next() else {
                _ = await store.send(reading.end)
                return nil
              }
              let (action, isLast) = reading.message(message)
              _ = await store.send(action)
              if isLast { return nil }
            } catch {
              guard !Task.isCancelled else { return nil }
              _ = await store.send(reading.failure(error))
              return error
            }
          }
        }
        return nil
      }
      if let connection {
        group.addTask {
          await connection.waitUntilGone()
          guard !Task.isCancelled else { return nil }
          _ = await store.send(clientLeft)
          return nil
        }
      }
      group.addTask {
        await shutdownNotice.waitUntilGone()
        guard !Task.isCancelled else { return nil }
        _ = await store.send(shutdown)
        return nil
      }
      var written = 0
      var isWriteFailed = false
      writing: for await state in states {
        allowance.yield(state[keyPath: allowedMessages])
        observe(state)
        let isOver = state[keyPath: ending] != nil
        // The place is free before the client learns that the session is over.
        if isOver { session.freePlace() }
        let outputs = state[keyPath: outbox].dropFirst(
          max(0, written - state[keyPath: self.written]))
        guard !outputs.isEmpty else {
          if isOver { break }
          continue
        }
        do {
          for output in outputs {
            try await write(output, state)
            written += 1
          }
        } catch {
          // Writing failed: the client is gone, and nothing more can be written.
          isWriteFailed = true
          break writing
        }
        _ = await store.send(acknowledge(written))
      }
      if isWriteFailed { _ = await store.send(clientLeft) }
      allowance.finish()
      group.cancelAll()
      var readFailure: (any Error)?
      for await failure in group where failure != nil { readFailure = failure }
      return readFailure
    }
    let final = await MainActor.run { store.state }
    return (final, readFailure)
  }
}

extension SessionCore {
  /// Admits a streaming session; the notice it returns is marked gone when the server shuts
  /// down (``SessionHost`` watches it).
  func admitStream(
    endpoint: String, remoteAddress: String?
  ) throws(AdmissionRefusal) -> (session: AdmittedSession, shutdownNotice: ClientConnection) {
    let shutdownNotice = ClientConnection()
    let session = try admit(.stream, endpoint: endpoint, remoteAddress: remoteAddress) {
      shutdownNotice.markGone()
    }
    return (session, shutdownNotice)
  }
}

extension SessionOutcome {
  /// A client that closed, as the WebSocket layer saw it: one that stopped answering pings
  /// timed out, and one whose frames the layer refused sent bad input.
  ///
  /// A shutdown that comes while the layer's close lingers (the client has had its error and
  /// close, and the connection waits for it to go) does not hide why the session ended.
  func seen(by connection: ClientConnection) -> SessionOutcome {
    guard self == .clientClosed || self == .shutdown else { return self }
    if connection.isUnresponsive { return .pingTimeout }
    if let reason = connection.refusalReason { return .badInput(reason) }
    return self
  }
}

extension SessionCore {
  /// The store of one streaming session: `reducer` on a recognizer borrowed from the core and
  /// the core's clock, its audio going to `audioInbox`.
  func makeSessionStore<R: Reducer & Sendable>(
    _ initialState: R.State, audioInbox: AudioInbox, reducer: @escaping @Sendable () -> R
  ) async -> Store<R.State, R.Action> where R.State: Sendable {
    await MainActor.run {
      Store(initialState: initialState) {
        reducer()
      } withDependencies: {
        $0.speechClient = makeSpeechClient()
        $0.continuousClock = clock
        $0.audioInbox = audioInbox
      }
    }
  }
}

/// What sessions and hosts share beside the loop of ``SessionHost``.
enum SessionHosting {
  /// Drops from `outbox` what the host has written since `written` (`total` outputs in all):
  /// what a session does with the host's ``SessionHost/acknowledge``.
  static func acknowledge<Item>(_ outbox: inout [Item], written: inout Int, through total: Int) {
    let count = min(max(0, total - written), outbox.count)
    outbox.removeFirst(count)
    written += count
  }

  /// Returns once the client has sent its first message, or after `wait` (a client turned
  /// away is answered then: frames right behind a WebSocket upgrade can be lost by a client
  /// still finishing its side of it).
  static func waitForFirstMessage<Messages: AsyncSequence & Sendable>(
    _ messages: Messages, atMost wait: Duration
  ) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        var iterator = messages.makeAsyncIterator()
        _ = try? await iterator.next()
      }
      group.addTask {
        try? await ContinuousClock().sleep(for: wait)
      }
      await group.next()
      group.cancelAll()
    }
  }
}
