/// The shared secret `--token` sets, checked in constant time.
///
/// A request proves it knows the token with `Authorization: Bearer TOKEN`, or, for a browser's
/// WebSocket (which cannot set headers), `?token=TOKEN`. The token never appears in a log or a
/// description.
public struct AccessToken: Sendable, Equatable, CustomStringConvertible {
  private let bytes: [UInt8]

  /// Creates a token from its text.
  public init(_ token: String) {
    self.bytes = Array(token.utf8)
  }

  /// Whether `candidate` is the token, taking the same time wherever the first difference is.
  public func matches(_ candidate: some StringProtocol) -> Bool {
    let candidate = Array(candidate.utf8)
    var difference = UInt8(truncatingIfNeeded: candidate.count ^ bytes.count)
    for index in bytes.indices {
      let other = index < candidate.count ? candidate[index] : 0
      difference |= bytes[index] ^ other
    }
    return difference == 0 && candidate.count == bytes.count
  }

  /// Whether an `Authorization` header value (`Bearer TOKEN`) carries the token.
  public func matches(authorization header: some StringProtocol) -> Bool {
    let prefix = "Bearer "
    guard header.count > prefix.count, header.lowercased().hasPrefix("bearer ") else {
      return false
    }
    return matches(header.dropFirst(prefix.count))
  }

  /// Whether a request carries the token, in its `Authorization` header value or (for a
  /// browser's WebSocket) its `?token=` query value.
  public func authorizes(authorization: String?, queryToken: String?) -> Bool {
    if let authorization, matches(authorization: authorization) { return true }
    if let queryToken { return matches(queryToken) }
    return false
  }

  /// Never the token itself.
  public var description: String { "AccessToken(<redacted>)" }
}
