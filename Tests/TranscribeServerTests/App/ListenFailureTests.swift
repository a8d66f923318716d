import Foundation
import NIOCore
import Testing

@testable import TranscribeServer

/// Why the server could not listen, read from the error NIO throws, with the fix named.
@Suite struct ListenFailureTests {
  @Test func aPortInUseNamesThePortAndHowToPickAnother() throws {
    let failure = try #require(
      ListenFailure(IOError(errnoCode: EADDRINUSE, reason: "bind"), host: "::1", port: 2700))
    #expect(failure.reason == .addressInUse)
    #expect(
      failure.message
        == "[::1]:2700 is already in use by another program: stop it, or pick another port "
        + "with --port (--port 0 takes any free one).")
  }

  @Test func eachListeningErrorHasItsReason() throws {
    let cases: [(any Error, ListenFailure.Reason)] = [
      (IOError(errnoCode: EACCES, reason: "bind"), .noPermission),
      (IOError(errnoCode: EADDRNOTAVAIL, reason: "bind"), .notAnAddressOfThisMachine),
      (SocketAddressError.failedToParseIPString("nowhere.invalid"), .unknownHost),
    ]
    for (error, reason) in cases {
      #expect(ListenFailure(error, host: "nowhere.invalid", port: 80)?.reason == reason)
    }
    #expect(
      ListenFailure(
        SocketAddressError.failedToParseIPString("nowhere.invalid"), host: "x", port: 1)?
        .message.hasPrefix("cannot resolve the host 'x'") == true)
  }

  @Test func otherErrorsAreNotAboutListening() {
    struct Other: Error {}
    #expect(ListenFailure(Other(), host: "127.0.0.1", port: 1) == nil)
    #expect(ListenFailure(IOError(errnoCode: EPIPE, reason: "write"), host: "h", port: 1) == nil)
  }

  @Test func anIPv6HostStandsInBracketsInAURL() {
    #expect(ServerConfiguration.urlHost("::1") == "[::1]")
    #expect(ServerConfiguration.urlHost("[::1]") == "[::1]")
    #expect(ServerConfiguration.urlHost("127.0.0.1") == "127.0.0.1")
  }
}
