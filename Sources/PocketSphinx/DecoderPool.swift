import Foundation
import Recognition

/// A ``RecognizerPool`` of pocketsphinx ``Decoder``s: worker threads that each load the model
/// once and run decoding jobs in order.
///
/// The language model is memory-mapped, so every extra worker adds only its search state and
/// acoustic scores (about 20 MiB with the default English model), not a second copy of the model.
///
/// ```swift
/// let pool = DecoderPool(configuration: DecoderConfiguration(), size: 2)
/// pool.submit { decoder in
///   let events = try decoder.get().decodeSegment(samples, startingAt: 0)
/// }
/// ```
public typealias DecoderPool = RecognizerPool<Decoder>

extension RecognizerPool where Recognizer == Decoder {
  /// Creates a pool of decoders that load `configuration`; no thread starts and no model loads
  /// until the first job.
  ///
  /// - Parameter size: the number of workers, at least 1.
  public convenience init(configuration: DecoderConfiguration, size: Int) {
    self.init(size: size, threadName: "transcribe.decoder") { () throws(RecognitionFailure) in
      try Decoder(configuration: configuration)
    }
  }
}
