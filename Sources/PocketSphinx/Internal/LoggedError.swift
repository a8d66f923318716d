import Foundation

/// An `ERROR:` line of pocketsphinx's log: `ERROR: "jsgf.c", line 923: Failed to parse …`.
struct LoggedError: Equatable, Sendable {
  /// The source file that logged it, e.g. `jsgf_parser.y`.
  var source: String
  /// The message, without the location.
  var message: String

  init(source: String, message: String) {
    self.source = source
    self.message = message
  }

  /// Parses a log line; `nil` unless it is an error.
  init?(_ line: Substring) {
    guard line.hasPrefix("ERROR: ") else { return nil }
    var rest = line.dropFirst("ERROR: ".count)
    var source = ""
    if rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") {
      source = String(rest[rest.index(after: rest.startIndex)..<close])
      rest = rest[rest.index(after: close)...]
      // `, line 923: `
      if let colon = rest.firstIndex(of: ":") {
        rest = rest[rest.index(after: colon)...]
      }
    }
    self.source = source
    self.message = rest.trimmingCharacters(in: .whitespaces)
  }

  /// The first quoted word in the message, e.g. `flurbix` in
  /// `Word 'flurbix' in phrase 'go flurbix' is missing in the dictionary`.
  var firstQuoted: String? {
    guard let open = message.firstIndex(of: "'") else { return nil }
    let rest = message[message.index(after: open)...]
    guard let close = rest.firstIndex(of: "'") else { return nil }
    return String(rest[..<close])
  }
}
