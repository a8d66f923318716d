import PocketSphinx
import SpeechClient

extension LiveSpeechConfiguration {
  /// Loads a decoder of the shared pool that pushed-audio sessions (`transcribe serve`) borrow,
  /// so the first session does not wait for the model; returns once it is loaded.
  ///
  /// - Throws: the failure that kept the model from loading (e.g.
  ///   `SpeechClient.Failure.modelMissing`).
  public func preloadStreamingDecoder(
    for request: SpeechRecognitionRequest = SpeechRecognitionRequest(
      source: .pushed(PushedAudio()))
  ) async throws(SpeechClient.Failure) {
    let configuration = decoderConfiguration(for: request)
    try configuration.validate()
    let pool = SharedDecoderPools.pool(for: configuration, size: jobs)
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<SpeechClient.Failure?, Never>) in
      pool.submit { decoder in
        switch decoder {
        case .success: continuation.resume(returning: nil)
        case .failure(let failure): continuation.resume(returning: failure)
        }
      }
    }
    if let result { throw result }
  }
}
