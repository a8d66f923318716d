import ArgumentParser
import Foundation

/// The token `transcribe serve` asks of its clients, if any (`--token`, `--token-file` or
/// `TRANSCRIBE_TOKEN`), and the token files it reads (also `--hass-token-file`'s), checked
/// before the server starts.
extension Serve {
  /// The token, and where it came from: `--token`'s or `--token-file`'s (both at once are a
  /// usage error), else `TRANSCRIBE_TOKEN`'s, else none. The command line wins over the
  /// environment, so a unit's `--token-file` holds even when `TRANSCRIBE_TOKEN` is set around it.
  ///
  /// - Throws: `ValidationError` for `--token` with `--token-file`, or a token file that cannot
  ///   be used (see ``readTokenFile(_:)``).
  func resolvedToken(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> (value: String, source: String)? {
    if let tokenFile {
      guard token == nil else {
        throw ValidationError(
          "--token and --token-file both give the token: keep one (--token-file keeps it out "
            + "of the process list).")
      }
      return (try Self.readTokenFile(tokenFile), "--token-file \(tokenFile)")
    }
    if let token { return (token, "--token") }
    if let token = environment["TRANSCRIBE_TOKEN"] {
      return (token, "TRANSCRIBE_TOKEN")
    }
    return nil
  }

  /// The most a token file may hold: a token is a line, not a document.
  static let tokenFileLimit = 4096

  /// The token in the file at `path`: its text without the line break(s) that end it (`echo`
  /// and editors add one), so `printf s3cret` and `echo s3cret` write the same token. What is
  /// left is checked by ``tokenProblem(_:)`` like any token.
  ///
  /// - Throws: `ValidationError` naming the fix when the file is missing, unreadable, a
  ///   directory, empty (or only line breaks), over ``tokenFileLimit`` bytes, or not UTF-8.
  static func readTokenFile(
    _ path: String, option: String = "--token-file", withoutIt: String = "to serve without one"
  ) throws -> String {
    let subject = "\(option) \(path)"
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw ValidationError(
        "\(subject) does not exist: write the token into it (one line), or leave "
          + "\(option) out \(withoutIt).")
    }
    guard !isDirectory.boolValue else {
      throw ValidationError(
        "\(subject) is a directory: name the file that holds the token, e.g. "
          + "--token-file /etc/transcribe/token.")
    }
    let data: Data
    do {
      guard FileManager.default.isReadableFile(atPath: path) else {
        throw CocoaError(.fileReadNoPermission)
      }
      let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      defer { try? handle.close() }
      data = try handle.read(upToCount: tokenFileLimit + 1) ?? Data()
    } catch {
      throw ValidationError(
        "\(subject) cannot be read by \(ProcessInfo.processInfo.userName): give that user "
          + "read access (e.g. chgrp its group and chmod 0640), or run as one who has it.")
    }
    guard data.count <= tokenFileLimit else {
      throw ValidationError(
        "\(subject) is over \(tokenFileLimit) bytes: it should hold the token alone, on one "
          + "line.")
    }
    guard var text = String(data: data, encoding: .utf8) else {
      throw ValidationError(
        "\(subject) is not text: write the token into it as printable ASCII, on one line.")
    }
    while text.last?.isNewline == true { text.removeLast() }
    guard !text.isEmpty else {
      throw ValidationError(
        "\(subject) is empty: write a token of at least one character into it, or leave "
          + "\(option) out \(withoutIt).")
    }
    return text
  }

  /// Why a token cannot be used, if it cannot: an empty one would turn authentication off
  /// without a word, and spaces or control characters cannot travel in an `Authorization`
  /// header.
  static func tokenProblem(_ token: (value: String, source: String)?) -> String? {
    guard let (value, source) = token else { return nil }
    if value.isEmpty {
      return "\(source) is empty: pass a token of at least one character, or leave "
        + "--token and TRANSCRIBE_TOKEN unset to serve without one."
    }
    if let bad = value.unicodeScalars.first(where: { !(0x21...0x7E).contains($0.value) }) {
      let what =
        bad == " "
        ? "a space"
        : bad.properties.generalCategory == .control
          ? "a control character (U+\(String(bad.value, radix: 16, uppercase: true)))"
          : "'\(bad)'"
      return "\(source) holds \(what), which cannot be sent in an Authorization header: use "
        + "printable ASCII without spaces (letters, digits, punctuation)."
    }
    return nil
  }
}
