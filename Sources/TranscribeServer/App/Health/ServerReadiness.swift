import Synchronization

/// Whether the server has loaded what recognition needs, for `GET /readyz`.
///
/// The server listens (and answers `/healthz`) at once, while ``TranscriptionServer/prepare``
/// loads the model; load balancers send streams only once `/readyz` says so.
///
/// ```swift
/// let readiness = ServerReadiness()
/// readiness.state            // .preparing
/// readiness.finishPreparing(with: .success(()))
/// readiness.isPrepared       // true
/// ```
public final class ServerReadiness: Sendable {
  /// How far preparation has got.
  public enum State: Sendable, Equatable {
    /// `prepare` has not finished yet.
    case preparing
    /// `prepare` finished: sessions can be served.
    case prepared
    /// `prepare` threw: the server stays unready (the message names what failed).
    case failed(String)
  }

  private let current = Mutex(State.preparing)

  /// Creates a readiness that is still preparing.
  public init() {}

  /// The current state.
  public var state: State {
    current.withLock { $0 }
  }

  /// Whether `prepare` has finished successfully.
  public var isPrepared: Bool {
    state == .prepared
  }

  /// Records how `prepare` ended.
  public func finishPreparing(with result: Result<Void, any Error>) {
    current.withLock { state in
      switch result {
      case .success: state = .prepared
      case .failure(let error): state = .failed(String(describing: error))
      }
    }
  }
}
