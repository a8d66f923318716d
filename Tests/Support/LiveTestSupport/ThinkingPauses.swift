import Foundation

/// pocketsphinx-testdata's five LibriVox sentences, each with one pause of digital silence put
/// at a word boundary in its middle, where the reader made none ("He might even have been
/// made | amiable himself"): a fixed pause cuts each in two, sentence endpointing should not.
public enum ThinkingPauses {
  /// Where each clip gets its pause, in seconds: the end of a word near the middle of its
  /// speech (pocketsphinx's alignment, moved back to where the word's sound ends).
  public static let boundaries: [(clip: String, seconds: Double)] = [
    ("0870", 3.45), ("0880", 1.48), ("0890", 2.78), ("0920", 2.98), ("0930", 1.68),
  ]

  /// The five clips with a `pause` of silence each, written into `directory` with sox as 16 kHz
  /// mono WAV files, with each one's reference words.
  public static func files(
    pause: Double, in directory: URL
  ) throws -> [(url: URL, reference: String)] {
    let clips = try NoisySpeech.libriVoxClips()
    return try boundaries.map { boundary in
      guard
        let clip = clips.first(where: { $0.url.lastPathComponent.hasSuffix("\(boundary.clip).wav") }
        )
      else { throw CocoaError(.fileNoSuchFile) }
      let url = directory.appendingPathComponent("\(boundary.clip)-pause\(pause).wav")
      _ = try runSox([clip.url.path, url.path, "pad", "\(pause)@\(boundary.seconds)"])
      return (url, clip.reference)
    }
  }
}
