import Architecture
import Clocks
import Testing

@testable import TranscribeServer

/// What every streaming session shares, told on the child reducer alone with `TestStore` and
/// `TestClock`: the outbox and its acknowledgement, the allowance, the limits and what the
/// host sees, each reaching the protocol's session as a delegate action.
@MainActor
struct StreamSessionTests {
  typealias Stream = StreamSession<String, WebSocketSessionError>

  let clock = TestClock()

  func makeStore(
    _ state: Stream.State = Stream.State(), limits: ServerConfiguration = ServerConfiguration()
  ) -> TestStoreOf<Stream> {
    TestStore(initialState: state) {
      Stream(limits: limits)
    } withDependencies: {
      $0.continuousClock = clock
    }
  }

  @Test func theHostsAcknowledgementTakesWhatItWroteFromTheOutbox() async {
    var state = Stream.State()
    state.outbox = ["a", "b", "c"]
    let store = makeStore(state)
    await store.send(.written(through: 2)) {
      $0.outbox = ["c"]
      $0.written = 2
    }
    // An acknowledgement again changes nothing; one past the outbox takes what is there.
    await store.send(.written(through: 2))
    await store.send(.written(through: 5)) {
      $0.outbox = []
      $0.written = 3
    }
  }

  @Test func theNextMessageWaitsWhileTooMuchAudioWaitsForTheDecoder() {
    var state = Stream.State()
    state.messageReceived()
    state.wantsMessage = true
    state.allowNextMessage(waitingSeconds: 6, within: .seconds(5))
    #expect(state.allowedMessages == 1)
    state.allowNextMessage(waitingSeconds: 5, within: .seconds(5))
    #expect(state.allowedMessages == 2)
    #expect(!state.wantsMessage)
    // Not wanted: the buffer draining lets nothing in.
    state.messageReceived()
    state.allowNextMessage(waitingSeconds: 0, within: .seconds(5))
    #expect(state.allowedMessages == 2)
  }

  @Test func aSilentSessionMustCloseForTheIdleTimeout() async {
    let store = makeStore()
    await store.send(.start)
    await clock.advance(by: .seconds(30))
    await store.receive(\.idleTimeoutElapsed)
    await store.receive(\.delegate.mustClose, .session(.idle(.seconds(30))))
    await store.skipInFlightEffects()
  }

  @Test func aTrickleOfAudioMustCloseForTooLittleAudio() async {
    var state = Stream.State()
    state.idleAudio.received = .milliseconds(50)
    let store = makeStore(state)
    await store.send(.start)
    await clock.advance(by: .seconds(30))
    await store.receive(\.idleTimeoutElapsed)
    await store.receive(
      \.delegate.mustClose,
      .session(
        .tooLittleAudio(
          received: .milliseconds(50), within: .seconds(30), renewal: .milliseconds(100))))
    await store.skipInFlightEffects()
  }

  @Test func aSessionPastItsMaximumLengthMustClose() async {
    var limits = ServerConfiguration()
    limits.maxSessionDuration = .seconds(10)
    let store = makeStore(limits: limits)
    await store.send(.start)
    await clock.advance(by: .seconds(10))
    await store.receive(\.maxDurationElapsed)
    await store.receive(\.delegate.mustClose, .session(.tooLong(.seconds(10))))
    await store.skipInFlightEffects()
  }

  @Test func whatTheHostSeesReachesTheSessionUntilItHasEnded() async {
    let store = makeStore()
    await store.send(.shutdown)
    await store.receive(\.delegate.mustClose, .session(.shuttingDown))
    await store.send(.readFailed("too large"))
    await store.receive(\.delegate.end, .readFailed("too large"))
    await store.send(.clientLeft)
    await store.receive(\.delegate.end, .clientGone)
    // Once the session has ended, nothing more reaches it.
    var ended = Stream.State()
    ended.ending = .clientGone
    let over = makeStore(ended)
    await over.send(.clientLeft)
    await over.send(.shutdown)
  }

  @Test func anEndingReadsAsItsOutcome() {
    #expect(Stream.Ending.finished.outcome == .finished)
    #expect(Stream.Ending.clientGone.outcome == .clientClosed)
    #expect(Stream.Ending.readFailed("bad frame").outcome == .badInput("bad frame"))
    #expect(Stream.Ending.problem(.session(.tooLong(.seconds(1)))).outcome == .tooLong)
    #expect(Stream.Ending.problem(.configurationAfterAudio).outcome.label == "bad_input")
  }
}
