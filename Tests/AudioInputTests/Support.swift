import Foundation
import LiveTestSupport

@testable import AudioInput

/// Reads a source to its end: the samples, and the failure that ended it, if any.
func readAll(_ source: any SampleSource) -> (samples: [Int16], failure: AudioInputFailure?) {
  var samples: [Int16] = []
  do {
    while let chunk = try source.read() { samples += chunk }
  } catch {
    return (samples, error)
  }
  return (samples, nil)
}

/// goforward.raw's samples, read without libsndfile.
func goForwardSamples() throws -> [Int16] {
  let data = try Data(contentsOf: SpeechTestData.goForward)
  return stride(from: 0, to: data.count - 1, by: 2).map {
    Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
  }
}

/// Converts goforward.raw (16 kHz mono s16le) with sox: `format` options go before the output
/// file (e.g. `-r 44100 -c 2`), `effects` after it (e.g. `pad 0 3`).
func soxConvertGoForward(
  to url: URL, format: [String] = [], effects: [String] = []
) throws {
  try runSox(
    [
      "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
      SpeechTestData.goForward.path,
    ]
      + format + [url.path] + effects)
}

extension TemporaryDirectory {
  /// A file in the directory.
  func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}
