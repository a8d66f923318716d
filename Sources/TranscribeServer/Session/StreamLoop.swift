import Architecture
import Foundation
import SpeechClient
import Synchronization

/// How a host turns what it reads into a session's actions.
struct StreamReading<Action: Sendable, Message>: Sendable {
  /// The action for a message, and whether it is the last the host reads.
  var message: @Sendable (Message) -> (action: Action, isLast: Bool)
  /// The action once the client has sent its last message.
  var end: Action
  /// The action when reading fails.
  var failure: @Sendable (any Error) -> Action
}

/// The loop ``StreamHost`` runs a session's store in: it does what the session's stream state
/// says, whatever the protocol and the transport.
///
/// The loop is one task group:
/// - a reader, reading a message only while the stream's allowance lets it
///   (``StreamSession/State/allowedMessages``), each turned into an action; the end of the
///   messages is one action and a failure to read another (the failure is returned, for the
///   protocol layer to close with the code it stands for);
/// - a watcher for the client leaving (when the transport tells, ``ClientConnection``) and one
///   for the server shutting down;
/// - this task, writing the stream's outbox in order and acknowledging what it wrote, until the
///   session has ended (``StreamSession/State/ending``) and everything is written. The
///   session's place is freed as soon as it has ended, before the client learns it; a failure
///   to write means the client is gone.
struct StreamLoop<Session: ProtocolSession>
where Session.State: Sendable, Session.Action: Sendable {
  /// How the host turns what it reads into actions.
  typealias Reading<Message> = StreamReading<Session.Action, Message>

  /// The session's store: its own actor, so the reducers of a server's sessions run in
  /// parallel.
  let store: ActorStore<Session.State, Session.Action>
  /// The audios the reader pushed into.
  let audios = PushedAudios()

  /// Runs the session until it is over: reads `messages` as `reading` says, writes each
  /// output with `write` (given the state it is in), and lets `observe` see every state the
  /// host sees. Returns the final state, and why reading failed if it did.
  func run<Messages: AsyncSequence & Sendable>(
    _ messages: Messages, reading: Reading<Messages.Element>, session: AdmittedSession,
    shutdownNotice: ClientConnection, connection: ClientConnection?,
    observe: (Session.State) -> Void = { _ in },
    write: (Session.Output, Session.State) async throws -> Void
  ) async -> (final: Session.State, readFailure: (any Error)?) {
    let store = self.store
    let stream = Session.streamState
    let (clientLeft, shutdown) = (
      Session.streamAction(.clientLeft), Session.streamAction(.shutdown)
    )
    let audios = self.audios
    let (allowances, allowance) = AsyncStream.makeStream(
      of: Int.self, bufferingPolicy: .bufferingNewest(1))
    let states = await store.states(bufferingPolicy: .bufferingNewest(1))
    _ = await store.send(Session.streamAction(.start))

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
              if let audio = await Self.deliver(action, to: store) { audios.note(audio) }
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
        allowance.yield(state[keyPath: stream].allowedMessages)
        observe(state)
        let isOver = state[keyPath: stream].ending != nil
        // The place is free before the client learns that the session is over.
        if isOver { session.freePlace() }
        let outputs = state[keyPath: stream].outbox.dropFirst(
          max(0, written - state[keyPath: stream].written))
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
        _ = await store.send(Session.streamAction(.written(through: written)))
      }
      if isWriteFailed { _ = await store.send(clientLeft) }
      allowance.finish()
      group.cancelAll()
      var readFailure: (any Error)?
      for await failure in group where failure != nil { readFailure = failure }
      return readFailure
    }
    let final = await store.state
    return (final, readFailure)
  }

  /// Sends a message's action and, when the session took the message as audio (its count of
  /// audio messages grew), pushes the audio's PCM into the audio its recognition reads now, in
  /// the same turn: the reader reads messages in order, so the audio goes in in that order, and
  /// an end of the audio the session decides on later cannot overtake it. Returns the audio
  /// pushed into. It runs on the store, so no other action comes between.
  private static func deliver(
    _ action: Session.Action, to store: isolated ActorStore<Session.State, Session.Action>
  ) -> PushedAudio? {
    let before = store.withState(\.audioMessages)
    store.send(action)
    return store.withState { state in
      guard state.audioMessages > before, let audio = state.audio,
        let pcm = Session.pcm(of: action, in: state)
      else { return nil }
      audio.push(littleEndian: pcm.readableBytesView)
      return audio
    }
  }
}

/// The audios a session's reader pushed into, for the seconds the decoder took from them all.
final class PushedAudios: Sendable {
  private let audios = Mutex<[PushedAudio]>([])

  /// Remembers `audio` (once): a session's audios follow one another, and one that ended is
  /// never pushed into again, so only the latest needs comparing.
  func note(_ audio: PushedAudio) {
    audios.withLock { audios in
      if audios.last !== audio { audios.append(audio) }
    }
  }

  /// The seconds the decoder has taken from all of them.
  var consumedSeconds: Double {
    audios.withLock { $0.reduce(0) { $0 + $1.consumedDuration } }
  }
}

extension SessionCore {
  /// Admits a streaming session; the notice it returns is marked gone when the server shuts
  /// down (``StreamLoop`` watches it).
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
  /// the core's clock, in a store of its own that runs off the main actor, on `executor` (a
  /// lease of the core's ``SessionCore/executors``, held while the session runs).
  func makeSessionStore<R: Reducer & Sendable>(
    _ initialState: R.State, reducer: R, executor: ThreadExecutor
  ) -> ActorStore<R.State, R.Action> where R.State: Sendable {
    ActorStore(initialState: initialState, executor: executor) {
      reducer
    } withDependencies: {
      $0.speechClient = makeSpeechClient()
      $0.continuousClock = clock
    }
  }
}

extension StreamHost {
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
