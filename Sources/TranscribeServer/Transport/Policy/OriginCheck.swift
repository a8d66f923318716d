import Hummingbird
import Logging

/// Which web pages may use the server: its own, and the origins of `--allow-origin`.
///
/// A browser lets any page it shows open a WebSocket to `127.0.0.1` or post a form there, and
/// says which page asked in the `Origin` header. Without this check, any site the user visits
/// could transcribe through (and with the token of a page opened with `?token=`) a local
/// server. A request whose `Origin` is neither the server's own (the host the request's `Host`
/// names, whatever the port: a page behind a proxy or on another local port of the same host
/// counts as the server's) nor allowed is refused with 403 before anything else; requests
/// without `Origin` (curl, SDKs, most vosk clients) are not browsers' and pass.
public struct OriginCheck: Sendable {
  /// The origins allowed besides the server's own; `*` allows every one.
  public let allowed: [String]

  /// A check that allows `allowed` besides the server's own origin.
  public init(allowed: [String]) {
    self.allowed = allowed.map(Self.normalized)
  }

  /// Whether a request with this `Origin` and `Host` may pass.
  public func allows(origin: String?, host: String?) -> Bool {
    guard let origin, !allowed.contains("*") else { return true }
    let normalized = Self.normalized(origin)
    if allowed.contains(normalized) { return true }
    guard let host, let scheme = normalized.range(of: "://") else { return false }
    return Self.hostName(normalized[scheme.upperBound...]) == Self.hostName(host.lowercased())
  }

  /// The host of `host[:port]` (`[::1]` for `[::1]:2700`).
  private static func hostName(_ authority: some StringProtocol) -> Substring {
    let authority = Substring(authority)
    if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
      return authority[...end]
    }
    return authority.prefix { $0 != ":" && $0 != "/" }
  }

  /// The refusal of a request for `path` from `origin`: 403, in OpenAI's error JSON under
  /// `/v1/`, text elsewhere.
  static func refusal(path: String, origin: String) -> Refusal {
    let origin = origin.cut(after: OneLineLogHandler<SwiftLogNoOpLogHandler>.valueLimit)
    return Refusal(.originNotAllowed(origin), path: path)
  }

  /// The refusal of a request for `path` with this `Origin` and `Host`, or `nil` when it may
  /// pass.
  func refusal(path: String, origin: String?, host: String?) -> Refusal? {
    allows(origin: origin, host: host) ? nil : Self.refusal(path: path, origin: origin ?? "")
  }

  /// The refusal of `request`, or `nil` when it may pass.
  func refusal(of request: Request) -> Refusal? {
    refusal(path: request.uri.path, origin: request.headers[.origin], host: request.head.authority)
  }

  private static func normalized(_ origin: String) -> String {
    var origin = origin.lowercased()
    while origin.hasSuffix("/") { origin.removeLast() }
    return origin
  }
}
