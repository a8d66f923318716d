import Foundation
import KeyboardClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Types through `ydotool`, which writes key events into the kernel's `/dev/uinput`: below any
/// display server, so it works on GNOME and KDE too, but it presses *keys*, not characters.
///
/// Debian bookworm's ydotool is 0.1.8: `ydotool type` knows a US layout's ASCII keys only (it
/// stops at the first character it has no key for) and the session's own layout still applies
/// (with a German layout, its "y" arrives as "z"). So this typer types ASCII only and refuses
/// other text before typing any of it (``KeyboardClientFailure/cannotType(tool:characters:)``),
/// so that nothing arrives half-typed and the caller can keep the text. Without its daemon
/// (`ydotoold`, Debian package `ydotoold`, run as root) each call opens `/dev/uinput` itself,
/// which needs root or the `input` group; without either, ydotool aborts with "failed to open
/// uinput device".
struct YdotoolTyper: Sendable {
  let runner: ToolRunner
  let ydotool: URL

  /// Finds ydotool and checks that it can reach the kernel: its daemon answers, or (when
  /// `daemonOnly` is false) `/dev/uinput` opens for writing.
  static func check(
    runner: ToolRunner, daemonOnly: Bool
  ) throws(KeyboardClientFailure)
    -> YdotoolTyper
  {
    guard let ydotool = runner.executable("ydotool") else {
      throw .typerMissing(tool: "ydotool", package: "ydotool")
    }
    let typer = YdotoolTyper(runner: runner, ydotool: ydotool)
    if daemonAnswers(environment: runner.environment) { return typer }
    if !daemonOnly && uinputWritable() { return typer }
    throw .refused(tool: "ydotool", reason: unreachable)
  }

  /// What the user should know when ydotool is chosen.
  static let note = "ASCII only, typed as a US keyboard's keys"

  static let unreachable =
    "no ydotoold answers and /dev/uinput cannot be opened: apt install ydotoold and run it as "
    + "root, or use wtype (Wayland) or xdotool (X11)"

  func type(_ text: String) async throws(KeyboardClientFailure) {
    let text = XdotoolTyper.typeable(text)
    let outside = text.unicodeScalars.filter { !$0.isASCII }
    if !outside.isEmpty {
      var characters = ""
      for scalar in outside where !characters.unicodeScalars.contains(scalar) {
        characters.unicodeScalars.append(scalar)
      }
      throw .cannotType(tool: "ydotool", characters: characters)
    }
    var line = ""
    for character in text {
      switch character {
      case "\n", "\r\n", "\t":
        try await typeLine(line)
        line = ""
        try await key(character == "\t" ? "Tab" : "Enter", count: 1)
      default:
        line.append(character)
      }
    }
    try await typeLine(line)
  }

  func erase(_ count: Int) async throws(KeyboardClientFailure) {
    guard count > 0 else { return }
    try await key("BackSpace", count: count)
  }

  /// ydotool 0.1.8 reads options from every argument (text starting with "-" would be one), so
  /// the text goes on standard input, read as a file (`--file /dev/stdin`: 0.1.8 opens the
  /// path and reads it to its end; its own `-` is taken for an option): never in argv, never on
  /// disk.
  private func typeLine(_ line: String) async throws(KeyboardClientFailure) {
    guard !line.isEmpty else { return }
    try await run(
      ["type", "--delay", "0", "--key-delay", "1", "--file", "/dev/stdin"],
      input: Data(line.utf8), keys: line.unicodeScalars.count)
  }

  private func key(_ name: String, count: Int) async throws(KeyboardClientFailure) {
    try await run(
      ["key", "--delay", "0", "--key-delay", "1"] + Array(repeating: name, count: count),
      keys: count)
  }

  /// ydotool 0.1.8 exits with its argument count, not 0, when it worked: success is an exit
  /// without a signal and without an error message.
  private func run(
    _ arguments: [String], input: Data? = nil, keys: Int
  ) async throws(KeyboardClientFailure) {
    let output = try await runner.run(
      ydotool, arguments, input: input, timeout: runner.deadline(keys: keys))
    let text = output.standardError
    if text.contains("uinput") { throw .refused(tool: "ydotool", reason: Self.unreachable) }
    if output.signaled || text.contains("error") || text.contains("rror:") {
      throw .failed(tool: "ydotool", message: output.firstLine)
    }
  }

  /// Whether ydotoold listens on one of its sockets: `$YDOTOOL_SOCKET`,
  /// `$XDG_RUNTIME_DIR/.ydotool_socket`, `/tmp/.ydotool_socket` (0.1.8's fixed path).
  static func daemonAnswers(environment: [String: String]) -> Bool {
    var paths = ["/tmp/.ydotool_socket"]
    if let runtime = environment["XDG_RUNTIME_DIR"] {
      paths.insert("\(runtime)/.ydotool_socket", at: 0)
    }
    if let socket = environment["YDOTOOL_SOCKET"] { paths.insert(socket, at: 0) }
    return paths.contains { path in
      [Int32(SOCK_DGRAM.rawValue), Int32(SOCK_STREAM.rawValue)].contains { type in
        connects(to: path, type: type)
      }
    }
  }

  private static func connects(to path: String, type: Int32) -> Bool {
    let descriptor = socket(AF_UNIX, type, 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in bytes.enumerated() { buffer[index] = byte }
    }
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
      }
    }
  }

  /// Whether this process may write key events into `/dev/uinput`.
  static func uinputWritable() -> Bool {
    let descriptor = open("/dev/uinput", O_WRONLY | O_NONBLOCK)
    guard descriptor >= 0 else { return false }
    close(descriptor)
    return true
  }
}
