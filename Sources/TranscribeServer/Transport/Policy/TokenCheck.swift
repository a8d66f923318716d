import Hummingbird
import HummingbirdCore

/// The server's one check of a request's token, and its one refusal.
///
/// Every way in asks the same question of the same ``AccessToken``: the WebSocket upgrade
/// (before it is negotiated, in `UpgradeTokenHandler`), the REST routes and `/metrics` (through
/// ``PolicyMiddleware``). A request proves it knows the token with
/// `Authorization: Bearer TOKEN`; a WebSocket upgrade may carry `?token=TOKEN` instead, because a
/// browser's WebSocket cannot set headers. The refusal is always 401 with
/// `WWW-Authenticate: Bearer` and the same sentence: in OpenAI's error JSON under `/v1/`, where
/// OpenAI's SDKs read it, and as plain text elsewhere. It is counted and logged as a
/// ``SessionRejection/unauthorized`` rejection, never with the token.
public struct TokenCheck: Sendable {
  /// The token requests must carry, or `nil` to let every request through.
  public let token: AccessToken?

  /// A check of `token`; `nil` lets everything through.
  public init(token: AccessToken?) {
    self.token = token
  }

  /// Whether a request for `uri` with this `Authorization` header value may pass;
  /// `acceptsQueryToken` also accepts `?token=TOKEN` (WebSocket upgrades).
  public func authorizes(uri: String, authorization: String?, acceptsQueryToken: Bool) -> Bool {
    guard let token else { return true }
    let queryToken = acceptsQueryToken ? URI(uri).queryParameters.get("token") : nil
    return token.authorizes(authorization: authorization, queryToken: queryToken)
  }

  /// The refusal of a request for `uri` with this `Authorization` header value, or `nil` when
  /// it may pass; `acceptsQueryToken` also accepts `?token=TOKEN` (WebSocket upgrades).
  func refusal(uri: String, authorization: String?, acceptsQueryToken: Bool) -> Refusal? {
    guard !authorizes(uri: uri, authorization: authorization, acceptsQueryToken: acceptsQueryToken)
    else { return nil }
    return Self.refusal(path: String(uri.prefix { $0 != "?" }))
  }

  /// The refusal of `request` (whose token must be in its `Authorization` header), or `nil`
  /// when it may pass.
  func refusal(of request: Request) -> Refusal? {
    refusal(
      uri: request.uri.description, authorization: request.headers[.authorization],
      acceptsQueryToken: false)
  }

  /// The sentence every refusal says.
  public static let message = RequestRefusal.unauthorized.sentence

  /// The refusal of a request for `path`: 401 with `WWW-Authenticate: Bearer`.
  static func refusal(path: String) -> Refusal {
    Refusal(.unauthorized, path: path)
  }
}
