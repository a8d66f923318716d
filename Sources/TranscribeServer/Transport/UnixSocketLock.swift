import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The claim a process holds on a unix socket path for as long as it serves there: an exclusive
/// `flock` on a lock file beside the socket (`PATH.lock`), which the kernel drops when the
/// process ends, however it ends.
///
/// Whoever holds the lock owns the socket path: it may remove a socket file left there (by a
/// process that was killed) and bind its own. Whoever cannot take it knows that another process
/// serves there, or is about to, and must not touch the socket. Two processes started at the same
/// instant thus never both bind: one gets the lock, the other is refused.
///
/// The lock file holds the owner's process id (for messages such as "already running (pid N)")
/// and is never removed: removing it would let a third process lock a new file while the owner
/// still holds the old one.
///
/// ```swift
/// guard let lock = try UnixSocketLock.acquire(socket: path) else { /* refuse */ }
/// try UnixSocketLock.removeStaleSocket(at: path)  // a killed owner's socket
/// // bind at `path`; keep `lock` alive while serving, then `lock.release()`
/// ```
public final class UnixSocketLock: Sendable {
  /// Why the lock file cannot be used.
  public struct Failure: Error, Equatable, Sendable {
    /// The lock file's path.
    public var path: String
    /// The error number (`ENOENT`, `EACCES`, …).
    public var code: Int32
    /// What went wrong (`strerror`).
    public var reason: String

    init(path: String, code: Int32) {
      self.path = path
      self.code = code
      self.reason = String(cString: strerror(code))
    }
  }

  /// The lock file: the socket's path with `.lock` appended.
  public let path: String
  private let descriptor: Int32

  private init(path: String, descriptor: Int32) {
    self.path = path
    self.descriptor = descriptor
  }

  /// The lock file beside the socket at `socket`.
  public static func lockPath(socket: String) -> String {
    socket + ".lock"
  }

  /// Takes the lock for the socket at `socket` without waiting: the lock, or `nil` when another
  /// process holds it. The lock file is made (mode 0600) when missing, and the caller's process
  /// id is written into it.
  ///
  /// - Throws: ``Failure`` when the lock file cannot be opened (no such directory, no
  ///   permission).
  public static func acquire(socket: String) throws(Failure) -> UnixSocketLock? {
    let path = lockPath(socket: socket)
    // Close-on-exec: a typing tool or other child must not inherit (and so keep holding) it.
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
      throw Failure(path: path, code: errno)
    }
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      let error = errno
      if error == EINTR { continue }
      close(descriptor)
      if error == EWOULDBLOCK { return nil }
      throw Failure(path: path, code: error)
    }
    let pid = "\(getpid())\n"
    _ = ftruncate(descriptor, 0)
    _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    return UnixSocketLock(path: path, descriptor: descriptor)
  }

  /// The process id written into the lock file of the socket at `socket` by whoever holds (or
  /// last held) it; `nil` when there is none yet.
  public static func owner(socket: String) -> pid_t? {
    guard let data = FileManager.default.contents(atPath: lockPath(socket: socket)) else {
      return nil
    }
    return pid_t(
      String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
  }

  /// Whether a process accepts connections on the socket at `path` (a connect succeeds). A
  /// socket file nobody listens at, or no file, is not live.
  public static func isLive(_ path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard path.utf8.count < capacity else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: path.utf8)
      buffer[path.utf8.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    return result == 0
  }

  /// Removes a socket file at `path` that nobody listens at (left by a process that was
  /// killed). Call only while holding the lock. Anything else at `path` (a live socket, a
  /// regular file) is left alone, and the bind that follows fails.
  public static func removeStaleSocket(at path: String) {
    var status = stat()
    guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFSOCK, !isLive(path) else {
      return
    }
    unlink(path)
  }

  /// Gives the lock up (the lock file stays). The process's end does the same.
  public func release() {
    close(descriptor)
  }
}
