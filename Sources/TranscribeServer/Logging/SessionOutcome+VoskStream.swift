extension SessionOutcome {
  /// How a WebSocket stream's ending reads in its last log line.
  init(_ ending: VoskSession.Ending) {
    switch ending {
    case .endOfStream: self = .finished
    case .clientGone: self = .clientClosed
    case .readFailed(let description): self = .badInput(description)
    case .error(let error): self = error.outcome
    }
  }
}
