import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// One Wyoming listener (`--wyoming tcp://HOST:PORT` or `unix://PATH`) as a service: accepts
/// connections and serves each as a ``WyomingConnection`` over the shared session core, until
/// graceful shutdown closes it.
///
/// By the time the listener stops (after the core's drain, see ``TranscriptionService``), the
/// running sessions have delivered their last words; it stops accepting, waits for the
/// connections still open to end, and removes its socket file.
struct WyomingListener: Service {
  let core: SessionCore
  let address: WyomingAddress
  /// Called with the address once it listens (a TCP port 0 replaced with the port it got).
  let onListening: @Sendable (WyomingAddress) async -> Void

  typealias Connection = NIOAsyncChannel<WyomingInbound, ByteBuffer>

  func run() async throws {
    let core = self.core
    let settings = core.configuration.wyoming
    let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      // `echo '{"type":"describe"}' | nc HOST PORT` closes its side, then reads the answer.
      .childChannelOption(.allowRemoteHalfClosure, value: true)
    let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
      channel.eventLoop.makeCompletedFuture {
        try channel.pipeline.syncOperations.addHandler(
          ByteToMessageHandler(WyomingFrameDecoder(limits: settings)))
        return try Connection(wrappingChannelSynchronously: channel)
      }
    }
    let server: NIOAsyncChannel<Connection, Never>
    var listening = address
    var lock: UnixSocketLock?
    do {
      switch address {
      case .tcp(let host, let port):
        server = try await bootstrap.bind(
          host: host, port: port, childChannelInitializer: initializer)
        listening = .tcp(host: host, port: server.channel.localAddress?.port ?? port)
      case .unix(let path):
        lock = try Self.claim(path)
        server = try await bootstrap.bind(
          unixDomainSocketPath: path, cleanupExistingSocketFile: false,
          childChannelInitializer: initializer)
      }
    } catch {
      lock?.release()
      throw WyomingListenFailure(error, address: address)
    }
    core.logger.info("wyoming listening", metadata: ["address": "\(listening)"])
    await onListening(listening)
    defer {
      if case .unix(let path) = address { unlink(path) }
      lock?.release()
    }
    let channel = server.channel
    try await withGracefulShutdownHandler {
      try await server.executeThenClose { connections in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in connections {
            group.addTask { await Self.serve(connection, core: core) }
          }
        }
      }
    } onGracefulShutdown: {
      channel.close(promise: nil)
    }
  }

  /// Takes the socket path at `path` for this listener: its lock (held while it listens), then
  /// the stale socket a killed server left is removed. A path another server holds or listens
  /// at is refused (`EADDRINUSE`): never replace a live socket.
  private static func claim(_ path: String) throws -> UnixSocketLock {
    let lock: UnixSocketLock?
    do {
      lock = try UnixSocketLock.acquire(socket: path)
    } catch {
      throw IOError(errnoCode: error.code, reason: "lock \(error.path)")
    }
    guard let lock else { throw IOError(errnoCode: EADDRINUSE, reason: "locked by another server") }
    guard !UnixSocketLock.isLive(path) else {
      lock.release()
      throw IOError(errnoCode: EADDRINUSE, reason: "another program listens there")
    }
    UnixSocketLock.removeStaleSocket(at: path)
    return lock
  }

  /// Serves one connection, within the server's connection limit.
  private static func serve(_ connection: Connection, core: SessionCore) async {
    let limit = core.configuration.maxConnections
    let remote = connection.channel.remoteAddress.map(Self.describe)
    guard core.connections.admit(limit: limit) else {
      let problem = WyomingProblem.session(.tooManyConnections(limit: limit))
      core.metrics.protocolError(WyomingConnection.protocolName, code: problem.code)
      try? await connection.executeThenClose { _, outbound in
        try await outbound.write(problem.event.bytes)
      }
      return
    }
    defer { core.connections.release() }
    try? await connection.executeThenClose { inbound, outbound in
      await WyomingConnection(core: core, remoteAddress: remote).run(inbound: inbound) {
        try await outbound.write($0)
      }
    }
  }

  /// A peer's address as logs show it: `127.0.0.1:50412`, or `unix` for a socket file.
  private static func describe(_ address: SocketAddress) -> String {
    guard let ip = address.ipAddress, let port = address.port else { return "unix" }
    return "\(ServerConfiguration.urlHost(ip)):\(port)"
  }
}
