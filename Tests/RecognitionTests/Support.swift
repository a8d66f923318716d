import Foundation
import LiveTestSupport

/// goforward.raw's samples (16 kHz mono s16le), read without libsndfile.
func goForwardSamples() throws -> [Int16] {
  let data = try Data(contentsOf: SpeechTestData.goForward)
  return stride(from: 0, to: data.count - 1, by: 2).map {
    Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
  }
}
