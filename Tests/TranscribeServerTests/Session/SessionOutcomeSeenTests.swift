import Testing

@testable import TranscribeServer

/// How a stream's outcome reads once the WebSocket layer's view of the connection is added.
@Suite struct SessionOutcomeSeenTests {
  /// A client whose frames were refused sent bad input, even when the server stopped while the
  /// refusal's close lingered (the client had its error and close, but had not yet gone).
  @Test(arguments: [SessionOutcome.clientClosed, .shutdown])
  func aClientWhoseFramesWereRefusedSentBadInput(ending: SessionOutcome) {
    let connection = ClientConnection()
    connection.markRefused("WebSocket protocol error: a frame had RSV1 set")
    #expect(
      ending.seen(by: connection) == .badInput("WebSocket protocol error: a frame had RSV1 set"))
  }

  @Test func aShutdownWithNothingRefusedIsAShutdown() {
    #expect(SessionOutcome.shutdown.seen(by: ClientConnection()) == .shutdown)
    #expect(SessionOutcome.clientClosed.seen(by: ClientConnection()) == .clientClosed)
  }

  @Test func aClientThatStoppedAnsweringPingsTimedOutEvenIfTheServerThenStops() {
    let connection = ClientConnection()
    connection.markUnresponsive()
    #expect(SessionOutcome.clientClosed.seen(by: connection) == .pingTimeout)
    #expect(SessionOutcome.shutdown.seen(by: connection) == .pingTimeout)
  }

  @Test func whatTheStreamItselfDecidedStands() {
    let connection = ClientConnection()
    connection.markRefused("WebSocket protocol error: a frame had RSV1 set")
    #expect(SessionOutcome.finished.seen(by: connection) == .finished)
    #expect(SessionOutcome.tooLong.seen(by: connection) == .tooLong)
  }
}
