extension SessionOutcome {
  /// How a WebSocket stream's ending reads in its last log line.
  init(_ ending: VoskSession.Ending) {
    switch ending {
    case .endOfStream: self = .finished
    case .clientGone: self = .clientClosed
    case .readFailed(let description): self = .badInput(description)
    case .error(let error):
      switch error {
      case .idle: self = .idleTimeout
      case .sessionTooLong: self = .tooLong
      case .shuttingDown: self = .shutdown
      case .recognitionFailed, .capacity: self = .failed(error.message)
      case .malformedJSON, .unknownConfigurationField, .invalidConfigurationValue,
        .configurationAfterAudio, .unsupportedMessage, .oddLengthFrame, .frameTooLarge:
        self = .badInput(error.message)
      }
    }
  }
}
