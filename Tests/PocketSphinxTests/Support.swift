import Foundation
import LiveTestSupport
import Recognition

@testable import PocketSphinx

/// Samples of a headerless 16 kHz mono s16le file.
func samples(ofRaw url: URL) throws -> [Int16] {
  let data = try Data(contentsOf: url)
  return stride(from: 0, to: data.count - 1, by: 2).map {
    Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
  }
}

/// Feeds `samples` to `decoder` in chunks of `chunk` samples (2048, as the live client does),
/// then finishes it, and returns every event.
func decode(
  _ samples: [Int16], with decoder: Decoder, chunk size: Int = 2048
) throws -> [RecognitionEvent] {
  var events: [RecognitionEvent] = []
  for start in stride(from: 0, to: samples.count, by: size) {
    let chunk = samples[start..<min(start + size, samples.count)]
    events += try chunk.withUnsafeBufferPointer { try decoder.process($0) }
  }
  if let words = try decoder.finish() { events.append(.utterance(words)) }
  return events
}

/// The words of every utterance, in order.
func utteranceWords(_ events: [RecognitionEvent]) -> [String] {
  events.flatMap { event -> [String] in
    guard case .utterance(let words) = event else { return [] }
    return words.map(\.text)
  }
}

/// What goforward.raw says.
let goForwardWords = ["go", "forward", "ten", "meters"]
