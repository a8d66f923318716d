/// Where a Wyoming listener listens: `tcp://HOST:PORT` or `unix://PATH`.
///
/// ```swift
/// let address = try WyomingAddress(parsing: "tcp://0.0.0.0:10300")
/// address.description   // "tcp://0.0.0.0:10300"
/// ```
public enum WyomingAddress: Sendable, Equatable, CustomStringConvertible {
  /// A TCP port on a host (`0` picks a free port).
  case tcp(host: String, port: Int)
  /// A Unix domain socket at a path.
  case unix(path: String)

  /// The port Home Assistant's Wyoming add-ons use for speech-to-text.
  public static let defaultPort = 10300

  /// Parses `tcp://HOST:PORT` (an IPv6 host in brackets, `tcp://[::1]:10300`) or
  /// `unix://PATH`.
  ///
  /// - Throws: ``WyomingAddressError`` naming what is wrong and the shape expected.
  public init(parsing text: String) throws(WyomingAddressError) {
    if text.hasPrefix("unix://") {
      let path = String(text.dropFirst("unix://".count))
      guard !path.isEmpty else { throw .missingPath(text) }
      self = .unix(path: path)
      return
    }
    guard text.hasPrefix("tcp://") else { throw .unknownScheme(text) }
    let rest = text.dropFirst("tcp://".count)
    guard let colon = rest.lastIndex(of: ":") else { throw .missingPort(text) }
    var host = String(rest[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { throw .missingHost(text) }
    guard let port = Int(rest[rest.index(after: colon)...]), (0...65_535).contains(port) else {
      throw .badPort(text)
    }
    self = .tcp(host: host, port: port)
  }

  /// The address as it is written: `tcp://HOST:PORT` or `unix://PATH`.
  public var description: String {
    switch self {
    case .tcp(let host, let port): "tcp://\(ServerConfiguration.urlHost(host)):\(port)"
    case .unix(let path): "unix://\(path)"
    }
  }
}

/// Why a Wyoming address cannot be used; each message names the shape expected.
public enum WyomingAddressError: Error, Equatable, Sendable, CustomStringConvertible {
  case unknownScheme(String)
  case missingPath(String)
  case missingHost(String)
  case missingPort(String)
  case badPort(String)

  /// One line naming the fix.
  public var description: String {
    let shape = "use tcp://HOST:PORT (e.g. tcp://0.0.0.0:10300) or unix://PATH"
    return switch self {
    case .unknownScheme(let text): "'\(text)' is not a Wyoming address: \(shape)."
    case .missingPath(let text): "'\(text)' names no socket file: \(shape)."
    case .missingHost(let text): "'\(text)' names no host: \(shape)."
    case .missingPort(let text): "'\(text)' names no port: \(shape)."
    case .badPort(let text):
      "'\(text)' has no port from 0 to 65535: \(shape)."
    }
  }
}
