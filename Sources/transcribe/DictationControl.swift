import Foundation
import NIOCore
import NIOPosix

/// The control socket of a running `transcribe dictate`: how `--toggle`, `--pause`, `--resume`
/// and `--stop` (bound to hotkeys) reach it, and how a second `transcribe dictate` finds it.
///
/// One dictation per user session: the socket is `$XDG_RUNTIME_DIR/transcribe-dictate.sock`
/// (the per-user runtime directory that logind makes, mode 0700), else
/// `/tmp/transcribe-UID/dictate.sock` in a directory made for it with mode 0700. A connection
/// carries one command line (`toggle`, `pause`, `resume`, `stop`, `status`) and gets one reply
/// line: the dictation's process id and what it does now (`1234 listening`, `1234 paused`,
/// `1234 stopping`).
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

  /// Sends `command` to the dictation listening at `path` and returns its reply; `nil` when none
  /// is running there.
  static func send(_ command: Command, path: String) async -> String? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    do {
      let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(unixDomainSocketPath: path) { channel in
          channel.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
          }
        }
      return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(string: command.rawValue + "\n"))
        return try await readLine(inbound)
      }
    } catch {
      // Nobody listens there: a dictation that ended without removing its socket.
      return nil
    }
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
  /// closed. A stale socket (nobody listening) is replaced.
  static func serve(
    at path: String, handle: @escaping @Sendable (Command) async -> String
  ) async throws -> Server {
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
        channel.eventLoop.makeCompletedFuture {
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
