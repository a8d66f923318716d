import Foundation
import SpeechClient

extension Decoder {
  /// Decodes a stretch of audio on its own, as if this decoder had just been loaded, and
  /// returns what ``process(_:)`` and ``finish()`` reported, word times counted from the start of
  /// the whole input.
  ///
  /// The samples go in 2048 at a time, as ``process(_:)`` gets them from a file, so the
  /// utterances within the stretch are split the same way; whatever the stretch ends in is
  /// finished as the last utterance. Utterances without words are left out.
  ///
  /// - Parameter offset: where the stretch starts in the whole input, in seconds.
  public func decodeSegment(
    _ samples: [Int16], startingAt offset: TimeInterval
  ) throws(SpeechClient.Failure) -> [DecoderEvent] {
    try startNewStream()
    var events: [DecoderEvent] = []
    let chunkSize = 2048
    for start in stride(from: 0, to: samples.count, by: chunkSize) {
      let end = min(start + chunkSize, samples.count)
      events += try samples.withUnsafeBufferPointer { buffer throws(SpeechClient.Failure) in
        try process(UnsafeBufferPointer(rebasing: buffer[start..<end]))
      }
    }
    if let words = try finish() {
      events.append(.utterance(words))
    }
    return events.compactMap { event in
      switch event {
      case let .partial(words): .partial(Self.shift(words, by: offset))
      case let .utterance(words): words.isEmpty ? nil : .utterance(Self.shift(words, by: offset))
      }
    }
  }

  private static func shift(_ words: [RecognizedWord], by offset: TimeInterval) -> [RecognizedWord]
  {
    words.map { word in
      var word = word
      word.timestamp += offset
      return word
    }
  }
}
