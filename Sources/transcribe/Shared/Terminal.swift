import Foundation

/// Writing to the terminal or pipe, unbuffered and without the global `stdout`/`stderr`
/// variables (which are not concurrency-safe in Swift 6).
enum Terminal {
  static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
  static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

  /// Whether standard output is open (`transcribe >&-` closes it).
  ///
  /// The runtime may already have reused a closed descriptor 1 for one of its own (an eventfd or
  /// epoll instance, which `/proc` shows as `anon_inode:…`), so an open descriptor that is not a
  /// file, pipe, socket or device counts as closed too.
  static var stdoutIsOpen: Bool {
    guard fcntl(STDOUT_FILENO, F_GETFL) != -1 else { return false }
    var buffer = [CChar](repeating: 0, count: 256)
    let length = readlink("/proc/self/fd/\(STDOUT_FILENO)", &buffer, buffer.count - 1)
    guard length > 0 else { return true }
    let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return !target.hasPrefix("anon_inode:")
  }

  /// The width of the terminal on standard output, or 80.
  static var width: Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    return 80
  }

  /// Writes the transcript to standard output.
  ///
  /// - Throws: ``WriteError`` when it cannot be written (a full disk, a closed pipe).
  static func write(_ text: String) throws(WriteError) {
    try write(text, to: STDOUT_FILENO)
  }

  /// Writes to standard error; failures there cannot be reported anywhere, so they are ignored.
  static func writeError(_ text: String) {
    try? write(text, to: STDERR_FILENO)
  }

  /// Why the transcript could not be written: the `errno` text.
  struct WriteError: Error, Equatable {
    var reason: String
  }

  private static func write(_ text: String, to descriptor: Int32) throws(WriteError) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        throw WriteError(reason: String(cString: strerror(errno)))
      }
      bytes = bytes.dropFirst(written)
    }
  }
}
