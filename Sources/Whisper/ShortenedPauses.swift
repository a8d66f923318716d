import Foundation
import Recognition

/// An utterance's audio with its long pauses shortened, as Whisper hears it, and the way back
/// from times in it to times in the utterance.
///
/// Whisper gives no signal at a pause, so a sentence is held open through pauses up to
/// `--max-silence` and Whisper hears them whole. Given a second or more of silence inside an
/// utterance, Whisper base writes things nobody said: a sentence again, "[Music]", a word
/// split in two ("ill-manned, disposed" for "ill-disposed", with a 1.3 s pause before
/// "disposed"). So a pause of ``longestPause`` or more keeps ``keptPause`` of its quiet (half
/// at each side) and loses the rest.
///
/// A pause is a run of 10 ms frames within 6 dB of the utterance's quietest frames and at least
/// 25 dB under its loudest, so the quiet between words in a noisy room, which stands less than
/// 25 dB under the speech, is never cut.
///
/// ```swift
/// let shortened = ShortenedPauses(audio)
/// let transcript = decode(shortened.samples)
/// let start = shortened.originalTime(of: transcript.wordTimes![0].lowerBound)
/// ```
struct ShortenedPauses {
  /// The audio with its long pauses shortened.
  let samples: [Float]
  /// Where audio was taken out, in order: the sample of ``samples`` after which it was, and how
  /// many samples went.
  let cuts: [(at: Int, removed: Int)]

  static let frame = RecognitionAudio.sampleRate / 100
  /// The shortest pause that is shortened, and what is kept of it, in frames.
  static let longestPause = 60
  static let keptPause = 30

  init(_ audio: UnsafeBufferPointer<Float>) {
    let frame = Self.frame
    let levels = stride(from: 0, to: audio.count - frame + 1, by: frame).map { start in
      var energy: Float = 0
      for sample in audio[start..<start + frame] { energy += sample * sample }
      return 10 * log10(max(energy / Float(frame), 1e-10))
    }
    guard let loudest = levels.max(), levels.count >= Self.longestPause else {
      samples = Array(audio)
      cuts = []
      return
    }
    // The quietest frames' level: the 5th percentile, so one stray frame does not set it.
    let floor = levels.sorted()[levels.count / 20]
    let quiet = min(floor + 6, loudest - 25)
    var kept: [Float] = []
    kept.reserveCapacity(audio.count)
    var cuts: [(at: Int, removed: Int)] = []
    var copied = 0
    var index = 0
    while index < levels.count {
      guard levels[index] <= quiet else {
        index += 1
        continue
      }
      var end = index
      while end < levels.count, levels[end] <= quiet { end += 1 }
      if end - index >= Self.longestPause {
        // Keep half of what is kept at each side of the pause.
        let cutStart = (index + Self.keptPause / 2) * frame
        let cutEnd = (end - Self.keptPause / 2) * frame
        kept += audio[copied..<cutStart]
        cuts.append((at: kept.count, removed: cutEnd - cutStart))
        copied = cutEnd
      }
      index = end
    }
    kept += audio[copied...]
    samples = kept
    self.cuts = cuts
  }

  /// The time in the utterance of `time`, in seconds from the start of ``samples``.
  func originalTime(of time: TimeInterval) -> TimeInterval {
    let rate = Double(RecognitionAudio.sampleRate)
    let sample = Int((time * rate).rounded())
    let removed = cuts.prefix { $0.at <= sample }.reduce(0) { $0 + $1.removed }
    return time + Double(removed) / rate
  }
}
