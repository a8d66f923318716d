import Foundation
import IssueReporting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension DependencyValues {
  /// The URL session that features load data with.
  ///
  /// ```swift
  /// @Dependency(\.urlSession) var urlSession
  /// let (data, _) = try await urlSession.data(from: url)
  /// ```
  ///
  /// Live and preview: `URLSession.shared` (from FoundationNetworking on Linux). Test: a session
  /// whose every request fails the test and fails with `URLError(.notConnectedToInternet)`;
  /// override it (`$0.urlSession = …`), or better, put the networking behind a client
  /// dependency.
  public var urlSession: URLSession {
    get { self[URLSessionKey.self] }
    set { self[URLSessionKey.self] = newValue }
  }
}

private enum URLSessionKey: DependencyKey {
  static var liveValue: URLSession { .shared }

  static var testValue: URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [UnimplementedURLProtocol.self]
    return URLSession(configuration: configuration)
  }
}

/// Fails every request made through the test value of `\.urlSession`.
private final class UnimplementedURLProtocol: URLProtocol {
  override class func canInit(with request: URLRequest) -> Bool { true }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override func startLoading() {
    reportIssue(
      """
      Unimplemented: '@Dependency(\\.urlSession)' loaded \
      \(request.url?.absoluteString ?? "a request") in a test.

      To fix this, override the dependency ('$0.urlSession = …') in the test, or move the \
      request behind a client dependency and override that.
      """)
    client?.urlProtocol(self, didFailWithError: URLError(.notConnectedToInternet))
  }

  override func stopLoading() {}
}
