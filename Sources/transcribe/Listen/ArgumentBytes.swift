import Foundation

/// File names that are not valid UTF-8, as the command line gave them.
///
/// Swift's `CommandLine.arguments` (and so ArgumentParser) repairs bytes that are not UTF-8
/// with U+FFFD, and a Swift string or URL cannot name such a file again. The process's own
/// `argv` still has the bytes: a file is opened by them, and read through `/dev/fd/N`.
enum ArgumentBytes {
  /// The bytes of each command-line argument, `argv[0]` first.
  static var arguments: [[UInt8]] {
    (0..<Int(CommandLine.argc)).compactMap { index in
      CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) }
        .map { $0.map { UInt8(bitPattern: $0) } }
    }
  }

  /// A path that opens the file the user named with `path` (as ArgumentParser decoded it):
  /// `path` itself, unless it holds a replacement character and no such file exists, and a
  /// command-line argument whose own bytes (not UTF-8) name a file that does; then that file,
  /// opened, as `/dev/fd/N`, which stays open for the process's life.
  static func openablePath(_ path: String, arguments: [[UInt8]] = arguments) -> String {
    guard path.contains("\u{FFFD}"), !FileManager.default.fileExists(atPath: path) else {
      return path
    }
    for argument in arguments {
      // `-i NAME`, or `--input=NAME`.
      var candidates = [argument]
      if argument.first == UInt8(ascii: "-"),
        let equals = argument.firstIndex(of: UInt8(ascii: "="))
      {
        candidates.append(Array(argument[(equals + 1)...]))
      }
      for bytes in candidates
      where String(validating: bytes, as: UTF8.self) == nil
        && String(decoding: bytes, as: UTF8.self) == path
      {
        let descriptor = (bytes + [0]).withUnsafeBufferPointer { name in
          name.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
        }
        if descriptor >= 0 { return "/dev/fd/\(descriptor)" }
      }
    }
    return path
  }
}
