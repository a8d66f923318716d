import Testing

@testable import TranscribeServer

/// How a stream's outcome reads once the WebSocket layer's view of the connection is added.
@Suite struct SessionOutcomeSeenTests {
  @Test func aClientWhoseFramesWereRefusedSentBadInput() {
    let connection = ClientConnection()
    connection.markRefused("WebSocket protocol error: a frame had RSV1 set")
    #expect(
      SessionOutcome.clientClosed.seen(by: connection)
        == .badInput("WebSocket protocol error: a frame had RSV1 set"))
  }

  @Test func aShutdownWhileTheRefusalsCloseLingersStillSaysBadInput() {
    // The client has had its error and close; the server stops before the client goes.
    let connection = ClientConnection()
    connection.markRefused("a message of more than 2097152 bytes is over the limit")
    #expect(
      SessionOutcome.shutdown.seen(by: connection)
        == .badInput("a message of more than 2097152 bytes is over the limit"))
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
