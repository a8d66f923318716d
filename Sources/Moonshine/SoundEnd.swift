import Foundation
import Recognition

/// Where the sound of speech ends, looked for in the audio before the voice-activity detector's
/// end of speech: sentence endpointing counts its pause from there.
///
/// The detector hears speech end late. Silero VAD's probability falls slowly after the last
/// word, and its release threshold holds speech one window more; a breath or a pop on the
/// microphone after the word keeps it up longer still (on goforward.raw the last speech window
/// ends 0.16 s after "meters" does). Counting the pause from the detector's end makes every
/// judgement, and the words of a finished sentence, come that much later.
///
/// The sound ends at the last 10 ms frame, no more than ``longestShift`` before the detector's
/// end, whose level above 150 Hz (a fourth-order high-pass: pops and breath sounds have their
/// energy below it, speech above) is at least 12 dB over the utterance's floor (its quietest
/// 100 ms) and no more than 30 dB under its loudest frame, plus 20 ms. The end moves only when
/// the utterance's loudest frame stands ``cleanMargin`` over its floor: in noise the tail of
/// the last word can sink into the floor, and the detector's end is the safer guess there.
///
/// Measured on the endpointing study's 13 clips (`Benchmarks/endpointing`, "Counting the pause
/// from the sound's end"): on clean speech the end comes −0.02–0.14 s after the word's end as
/// the aligner and the spectrum place it (median 0.01 s), where the detector's came 0.03–0.19 s
/// after (median 0.07 s); under pink noise at 10 and 5 dB it stays the detector's.
enum SoundEnd {
  /// Samples in a level frame: 10 ms.
  static let frameLength = RecognitionAudio.sampleRate / 100
  /// How far before the detector's end the sound's end may be: 0.25 s.
  static let longestShift = RecognitionAudio.sampleRate / 4
  /// How much louder than its floor an utterance's loudest frame must be for its end to move:
  /// 35 dB.
  static let cleanMargin: Float = 35
  /// The audio looked at for the floor and the loudest frame: the last 10 s.
  static let lookedAt = RecognitionAudio.sampleRate * 10

  /// Where the sound ends in `samples` (an utterance's audio in [-1, 1]), given where its
  /// speech starts and where the detector heard it end: never after `detectorEnd`, never before
  /// `speechStart`.
  static func find(in samples: [Float], speechStart: Int, detectorEnd: Int) -> Int {
    let end = min(detectorEnd, samples.count)
    let from = max(0, end - lookedAt)
    guard end - from >= 2 * frameLength * 10 else { return detectorEnd }
    var filter = HighPass()
    var levels: [Float] = []
    levels.reserveCapacity((end - from) / frameLength)
    var energy: Float = 0
    var count = 0
    for index in from..<end {
      let value = filter.process(samples[index])
      energy += value * value
      count += 1
      if count == frameLength {
        levels.append(10 * log10(energy / Float(frameLength) + 1e-12))
        energy = 0
        count = 0
      }
    }
    // Frames start at `from`; the last partial frame (if any) is left out.
    let framesPerFloor = 10
    var window = levels.prefix(framesPerFloor).reduce(0, +)
    var floor = window
    for index in framesPerFloor..<max(framesPerFloor, levels.count) {
      window += levels[index] - levels[index - framesPerFloor]
      floor = min(floor, window)
    }
    // Digital silence has no floor worth the name: a quiet room's is about -70 dBFS.
    floor = max(floor / Float(framesPerFloor), -75)
    guard let peak = levels.max(), peak - floor >= cleanMargin else { return detectorEnd }
    let threshold = max(floor + 12, peak - 30)
    let lowest = max(0, (end - longestShift - from) / frameLength)
    guard
      let last = levels.indices.reversed().first(where: { $0 >= lowest && levels[$0] >= threshold })
    else { return detectorEnd }
    let margin = frameLength * 2
    return max(speechStart, min(detectorEnd, from + (last + 1) * frameLength + margin))
  }

  /// A fourth-order Butterworth high-pass at 150 Hz (16 kHz audio), as two biquads.
  struct HighPass {
    private var first = Biquad(quality: 0.541_196_1)
    private var second = Biquad(quality: 1.306_563)

    mutating func process(_ sample: Float) -> Float {
      second.process(first.process(sample))
    }
  }

  /// One second-order high-pass section at 150 Hz with the given quality factor (the audio
  /// EQ cookbook's form).
  struct Biquad {
    private let b0: Float, b1: Float, b2: Float, a1: Float, a2: Float
    private var x1: Float = 0, x2: Float = 0, y1: Float = 0, y2: Float = 0

    init(quality: Double) {
      let omega = 2 * Double.pi * 150 / Double(RecognitionAudio.sampleRate)
      let alpha = sin(omega) / (2 * quality)
      let cosine = cos(omega)
      let a0 = 1 + alpha
      b0 = Float((1 + cosine) / 2 / a0)
      b1 = Float(-(1 + cosine) / a0)
      b2 = b0
      a1 = Float(-2 * cosine / a0)
      a2 = Float((1 - alpha) / a0)
    }

    mutating func process(_ x: Float) -> Float {
      let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
      x2 = x1
      x1 = x
      y2 = y1
      y1 = y
      return y
    }
  }
}
