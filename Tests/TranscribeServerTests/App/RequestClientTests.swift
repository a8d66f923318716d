import Hummingbird
import Logging
import NIOEmbedded
import Testing

@testable import TranscribeServer

/// Which ``ClientConnection`` a request's handler watches.
@Suite struct RequestClientTests {
  /// A stream that starts after its connection closed (refused, answered and left) finds a
  /// pipeline without handlers; it still watches the connection that knows why.
  @Test func aRequestWatchesItsConnectionEvenIfItsHandlerStartsAfterTheClose() async throws {
    let connection = ClientConnection()
    let channel = NIOAsyncTestingChannel()
    try await channel.testingEventLoop.submit {
      try channel.pipeline.syncOperations.addHandler(
        ClientConnectionHandler(connection: connection))
    }.get()
    let context = ServerRequestContext(
      source: ApplicationRequestContextSource(channel: channel, logger: Logger(label: "test")))
    await channel.testingEventLoop.run()
    connection.markRefused("WebSocket protocol error: a frame had RSV1 set")
    try await channel.close()
    let client = await RequestClient(context)
    #expect(client.connection === connection)
    #expect(client.connection.refusalReason == "WebSocket protocol error: a frame had RSV1 set")
  }
}
