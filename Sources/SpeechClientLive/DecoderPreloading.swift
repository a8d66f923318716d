import Recognition
import SpeechClient

extension LiveSpeechConfiguration {
  /// Loads a recognizer of the shared pool that pushed-audio sessions (`transcribe serve`)
  /// borrow, so the first session does not wait for the model; returns once it is loaded.
  ///
  /// - Parameter request: the kind of session to prepare for; by default pushed audio with the
  ///   configuration's default engine.
  /// - Throws: the failure that kept the model from loading (e.g.
  ///   `SpeechClient.Failure.modelMissing`).
  public func preloadStreamingDecoder(
    for request: SpeechRecognitionRequest = SpeechRecognitionRequest(
      source: .pushed(PushedAudio()))
  ) async throws(SpeechClient.Failure) {
    _ = try validatedEngine(for: request)
    let pool = try pooledEngine(for: request).sharedPool(size: jobs)
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<SpeechClient.Failure?, Never>) in
      pool.submitAny { recognizer in
        switch recognizer {
        case .success: continuation.resume(returning: nil)
        case .failure(let failure): continuation.resume(returning: SpeechClient.Failure(failure))
        }
      }
    }
    if let result { throw result }
  }
}
