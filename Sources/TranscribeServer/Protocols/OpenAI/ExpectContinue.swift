import Foundation
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// `Expect: 100-continue`: a client that sends it waits for the server's interim
/// `100 Continue` before it sends the body (curl waits one second, then sends anyway; stricter
/// clients wait until the server answers). An upload that is refused from its head alone (no
/// token, a foreign origin, a `Content-Length` over the limit, no session place free) gets its
/// final status instead and never sends the body; one that is accepted gets `100 Continue` just
/// before the server starts reading.
enum ExpectContinue {
  /// Whether `request` waits for `100 Continue` before sending its body.
  static func isAwaited(by request: Request) -> Bool {
    guard let value = request.headers[.expect] else { return false }
    return value.split(separator: ",").contains {
      $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue"
    }
  }

  /// Sends the interim `100 Continue` on the request's connection, ahead of the final answer;
  /// nothing when the connection is gone.
  static func send(on channel: (any Channel)?) async {
    guard let channel else { return }
    try? await channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .continue)))
  }
}
