import Foundation

/// Reads a file descriptor that may stall forever (a pipe or FIFO whose writer went quiet, or
/// that no writer opened yet) without blocking uninterruptibly: it polls in short slices and
/// gives up as soon as its stop signal is raised.
///
/// The descriptor's flags are left alone (standard input may be shared with a shell); a read
/// follows only a poll that reported data or the end, so it never blocks.
struct InterruptibleReader {
  /// Why a read failed: `strerror`'s text.
  struct Failure: Error {
    var reason: String
  }

  let descriptor: Int32
  let stopSignals: [StopSignal]
  /// How long one poll waits before the stop signals are checked again.
  static let pollSlice: Int32 = 50

  /// Whether any of the stop signals was raised.
  var isStopped: Bool { stopSignals.contains { $0.isStopped } }

  /// Reads up to `buffer.count` bytes; 0 at the end of the input or once stopped.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
    while !isStopped {
      var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptors, 1, Self.pollSlice)
      if ready < 0 {
        if errno == EINTR { continue }
        throw Failure(reason: String(cString: strerror(errno)))
      }
      if ready == 0 { continue }
      let count = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
      if count < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw Failure(reason: String(cString: strerror(errno)))
      }
      return count
    }
    return 0
  }

  /// Fills `buffer` as far as the input goes; fewer bytes only at the end or once stopped.
  func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
    var filled = 0
    while filled < buffer.count {
      let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      if count == 0 { break }
      filled += count
    }
    return filled
  }
}
