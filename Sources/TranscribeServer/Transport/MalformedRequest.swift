import NIOHTTP1

/// The answers to requests the server cannot read as HTTP/1.1.
enum MalformedRequest {
  /// The answer to what the HTTP decoder could not read.
  static func answer(to error: HTTPParserError) -> Refusal {
    switch error {
    case .headerOverflow: Refusal(.headersTooLarge)
    case .invalidContentLength, .unexpectedContentLength: Refusal(.invalidContentLength)
    case .invalidVersion: Refusal(.unsupportedHTTPVersion)
    default: Refusal(.unreadable("\(error)"))
    }
  }
}
