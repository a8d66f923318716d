import Clocks
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import Synchronization
import Testing

@testable import TranscribeServer

/// A scripted client for the vosk WebSocket, as vosk's example client behaves: it sends a
/// message, and after each audio message and the end waits for exactly one reply.
struct VoskTestClient {
  /// A step of the script.
  enum Step {
    /// A text message (configuration, end, or anything else), and whether a reply is expected.
    case text(String, expectsReply: Bool)
    /// A binary message; a reply is expected.
    case binary([UInt8])
    /// Waits for one message without sending anything.
    case receive
    /// Runs `action` (e.g. advances a test clock) without sending anything.
    case perform(@Sendable () async -> Void)
    /// Advances `clock` by `step` and waits for the next message; when none has come 3 s
    /// later, advances it by `step` again (at most 10 times). One advance can come before a
    /// server timer has begun to sleep, and that timer's deadline is then past it; advancing
    /// again only once nothing came keeps a limit's last words from being overtaken by the
    /// next limit. When exactly a limit elapses is the session reducers' tests' business.
    case advanceUntilAnswered(TestClock<Duration>, by: Duration)
  }

  /// What the client saw.
  struct Transcript {
    /// Every text message received, in order.
    var replies: [String] = []
    /// The close frame, if the server closed.
    var close: WebSocketCloseFrame?

    /// The replies parsed as JSON objects.
    var objects: [[String: Any]] {
      replies.compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }

    /// The close code as a number.
    var closeCode: UInt16? {
      close.map { UInt16(webSocketErrorCode: $0.closeCode) }
    }
  }

  /// Runs `steps` against `/` (plus `path`), then reads until the server closes.
  static func run(
    _ client: some TestClientProtocol, path: String = "/",
    headers: HTTPFields = [:], _ steps: [Step], leavingAfterwards: Bool = false
  ) async throws -> Transcript {
    let replies = Mutex<[String]>([])
    let close = try await client.ws(
      path, configuration: .init(maxFrameSize: 4 << 20, additionalHeaders: headers)
    ) { inbound, outbound, _ in
      var messages = inbound.messages(maxSize: 4 << 20).makeAsyncIterator()
      func receive() async throws -> Bool {
        guard let message = try await messages.next() else { return false }
        if case .text(let text) = message { replies.withLock { $0.append(text) } }
        return true
      }
      for step in steps {
        switch step {
        case .text(let text, let expectsReply):
          try await outbound.write(.text(text))
          if expectsReply, try await !receive() { return }
        case .binary(let bytes):
          try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
          if try await !receive() { return }
        case .receive:
          if try await !receive() { return }
        case .perform(let action):
          await action()
        case .advanceUntilAnswered(let clock, let step):
          let advancing = Task {
            for _ in 0..<10 where !Task.isCancelled {
              await clock.advance(by: step)
              try? await Task.sleep(for: .seconds(3))
            }
          }
          let received = try await receive()
          // No advance may come after the answer: the next stream's timers would elapse.
          advancing.cancel()
          await advancing.value
          if !received { return }
        }
      }
      if leavingAfterwards { return }
      while try await receive() {}
    }
    return Transcript(replies: replies.withLock { $0 }, close: close)
  }

  /// `seconds` of 16-bit little-endian silence at `rate`, cut into messages of `chunk` seconds.
  static func silence(seconds: Double, rate: Int = 16_000, chunk: Double = 0.2) -> [Step] {
    let samplesPerChunk = Int(Double(rate) * chunk)
    let chunks = Int((seconds / chunk).rounded())
    return Array(
      repeating: .binary([UInt8](repeating: 0, count: samplesPerChunk * 2)), count: chunks)
  }

  static let eof = Step.text(#"{"eof" : 1}"#, expectsReply: true)

  static func config(_ json: String) -> Step {
    .text(#"{"config": \#(json)}"#, expectsReply: false)
  }
}
