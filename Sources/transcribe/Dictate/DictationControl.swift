import Foundation
import NIOCore
import NIOPosix
import TranscribeServer

/// The control socket of a running `transcribe dictate`: how `--toggle`, `--pause`, `--resume`
/// and `--stop` (bound to hotkeys) reach it, and how a second `transcribe dictate` finds it.
///
/// One dictation per user session: the socket is `$XDG_RUNTIME_DIR/transcribe-dictate.sock`
/// (the per-user runtime directory that logind makes, mode 0700), else
/// `/tmp/transcribe-UID/dictate.sock` in a directory made for it with mode 0700. A connection
/// carries one command line (`toggle`, `pause`, `resume`, `stop`, `status`) and gets one reply
/// line: the dictation's process id and what it does now (`1234 listening`, `1234 paused`,
/// `1234 stopping`).
///
/// The dictation that serves the socket holds its ``UnixSocketLock`` (`….sock.lock` beside it)
/// for its whole life, taken before anything else: a second dictation, even one started at the
/// same instant, finds it taken and is refused; a socket whose lock nobody holds is stale and
/// replaced. Both sides have deadlines: a connection that says nothing is dropped, and a command
/// that gets no reply gives up (``Answer/noAnswer``).
enum DictationControl {
  /// A command for the running dictation.
  enum Command: String, CaseIterable, Sendable {
    case toggle, pause, resume, stop, status
  }

  /// Why the control socket cannot be used.
  struct Failure: Error, Equatable {
    var message: String
  }

  /// The socket's path for this user.
  static func socketPath(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(Failure) -> String {
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
      return URL(fileURLWithPath: runtime).appendingPathComponent("transcribe-dictate.sock").path
    }
    // Without a runtime directory: one of our own in /tmp, which must be ours and private.
    let directory = "/tmp/transcribe-\(getuid())"
    if mkdir(directory, 0o700) != 0, errno != EEXIST {
      throw Failure(
        message:
          "cannot make \(directory) for the control socket (\(String(cString: strerror(errno)))): "
          + "set XDG_RUNTIME_DIR to a private directory of yours")
    }
    var status = stat()
    guard lstat(directory, &status) == 0, status.st_uid == getuid(),
      (status.st_mode & S_IFMT) == S_IFDIR, status.st_mode & 0o077 == 0
    else {
      throw Failure(
        message: "\(directory) is not a private directory of yours: remove it, or set "
          + "XDG_RUNTIME_DIR to a private directory of yours")
    }
    return directory + "/dictate.sock"
  }

  /// What came back from the dictation at a socket.
  enum Answer: Equatable, Sendable {
    /// Its reply line: its process id and what it does now (`1234 listening`).
    case reply(String)
    /// Nobody listens there (no socket, or one a killed dictation left).
    case notRunning
    /// It accepted the connection but did not reply within the deadline: it is stuck (or
    /// stopped with SIGSTOP).
    case noAnswer
  }

  /// How long `--toggle`, `--pause`, `--resume`, `--stop` and the status probe wait for the
  /// reply. A dictation answers at once (its reply comes from its state); one that does not is
  /// stuck, and a hotkey must not hang on it.
  static let replyDeadline = TimeAmount.seconds(3)

  /// How long the server gives a connection to send its command and take the reply: a client
  /// that connects and says nothing is dropped then, so it cannot keep a stopping dictation
  /// from exiting.
  static let connectionDeadline = TimeAmount.seconds(2)

  /// Sends `command` to the dictation listening at `path`, and waits at most `deadline` for its
  /// reply.
  static func send(
    _ command: Command, path: String, deadline: TimeAmount = replyDeadline
  ) async -> Answer {
    guard FileManager.default.fileExists(atPath: path) else { return .notRunning }
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    do {
      channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connectTimeout(deadline)
        .connect(unixDomainSocketPath: path) { channel in
          // The whole exchange has the deadline: closing the channel then ends the read.
          channel.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
          return channel.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
          }
        }
    } catch ChannelError.connectTimeout {
      return .noAnswer
    } catch {
      // Nobody listens there: a dictation that ended without removing its socket.
      return .notRunning
    }
    let line = try? await channel.executeThenClose { inbound, outbound in
      try await outbound.write(ByteBuffer(string: command.rawValue + "\n"))
      return try await readLine(inbound)
    }
    guard let line, !line.isEmpty else { return .noAnswer }
    return .reply(line)
  }

  /// Reads up to the first newline (or the end), without it.
  private static func readLine(
    _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>
  ) async throws -> String {
    var line = ""
    for try await var buffer in inbound {
      line += buffer.readString(length: buffer.readableBytes) ?? ""
      if line.contains("\n") || line.utf8.count > 256 { break }
    }
    return String(line.prefix { $0 != "\n" })
  }

  /// A control socket being served; ``close()`` stops serving and removes the socket.
  final class Server: Sendable {
    private let channel: any Channel
    private let path: String
    private let serving: Task<Void, Never>

    fileprivate init(channel: any Channel, path: String, serving: Task<Void, Never>) {
      self.channel = channel
      self.path = path
      self.serving = serving
    }

    /// Stops serving, once the replies under way are written, and removes the socket file.
    func close() async {
      try? await channel.close()
      await serving.value
      unlink(path)
    }
  }

  /// Serves commands at `path`, answering each with `handle`'s reply, until the server is
  /// closed. The caller holds the socket's ``UnixSocketLock``: a stale socket (nobody listening)
  /// is replaced, a live one is not (the bind fails). Each connection is closed
  /// ``connectionDeadline`` after it was accepted, answered or not.
  static func serve(
    at path: String, handle: @escaping @Sendable (Command) async -> String
  ) async throws -> Server {
    UnixSocketLock.removeStaleSocket(at: path)
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false) { channel in
        channel.eventLoop.scheduleTask(in: connectionDeadline) { channel.close(promise: nil) }
        return channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    // Only this user may talk to it (the directory is private too, where it is ours).
    chmod(path, 0o600)
    let channel = server.channel
    let serving = Task<Void, Never> {
      _ = try? await withThrowingDiscardingTaskGroup { group in
        try await server.executeThenClose { connections in
          for try await connection in connections {
            group.addTask {
              try? await connection.executeThenClose { inbound, outbound in
                let line = try await readLine(inbound)
                let reply =
                  if let command = Command(rawValue: line.trimmingCharacters(in: .whitespaces)) {
                    await handle(command)
                  } else {
                    "error: unknown command \(line.debugDescription); say one of "
                      + Command.allCases.map(\.rawValue).joined(separator: ", ")
                  }
                try await outbound.write(ByteBuffer(string: reply + "\n"))
              }
            }
          }
        }
      }
    }
    return Server(channel: channel, path: path, serving: serving)
  }
}
