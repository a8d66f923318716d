import Foundation
import Testing

@testable import Recognition

struct UtteranceSegmenterTests {
  /// `seconds` of a 440 Hz tone at `amplitude`, or of low noise when `amplitude` is small.
  private func tone(_ seconds: Double, amplitude: Double = 8000) -> [Int16] {
    (0..<Int(seconds * 16000)).map { index in
      Int16(amplitude * sin(2 * .pi * 440 * Double(index) / 16000))
    }
  }

  /// Quiet background noise: a few units of amplitude, like a recording's noise floor.
  private func background(_ seconds: Double) -> [Int16] {
    var generator = SystemRandomNumberGenerator()
    return (0..<Int(seconds * 16000)).map { _ in Int16.random(in: -20...20, using: &generator) }
  }

  /// Feeds `samples` in chunks of 2048, as files are read, and returns every piece.
  private func segments(
    of samples: [Int16], _ segmenter: UtteranceSegmenter = UtteranceSegmenter()
  ) throws -> [UtteranceSegmenter.Segment] {
    var segmenter = segmenter
    var pieces: [UtteranceSegmenter.Segment] = []
    for start in stride(from: 0, to: samples.count, by: 2048) {
      pieces += try segmenter.append(Array(samples[start..<min(start + 2048, samples.count)]))
    }
    if let last = segmenter.finish() { pieces.append(last) }
    return pieces
  }

  @Test func piecesAreCutInTheMiddleOfPausesAndTogetherAreTheWholeStream() throws {
    // Two 2.5 s "utterances" with a 1 s pause between them, and pauses around them.
    let samples =
      background(0.5) + tone(2.5) + background(1) + tone(2.5) + background(0.5)
    let pieces = try segments(of: samples)
    #expect(pieces.count == 2)
    #expect(pieces.flatMap(\.samples) == samples)
    #expect(pieces.map(\.start) == [0, pieces[0].samples.count])
    // The cut is in the middle of the pause: 0.5 + 2.5 + 0.5 s, within a frame or two.
    let cut = Double(pieces[1].start) / 16000
    #expect(abs(cut - 3.5) < 0.03)
    #expect(abs(pieces[1].startTime - cut) < 1e-9)
  }

  @Test func eachPieceCarriesTheDetectorsVerdictsOnItsWindows() throws {
    // One pass over the whole stream: the pieces' verdicts, in order, are that pass's.
    let samples =
      background(0.5) + tone(2.5) + background(1) + tone(2.5) + background(0.2) + tone(0.2)
    let pieces = try segments(of: samples)
    #expect(pieces.count == 2)
    var activity = try VoiceActivityDetection.energy.makeStream()
    var whole: [Bool] = []
    for start in stride(from: 0, to: samples.count - 160 + 1, by: 160) {
      whole.append(try activity.isSpeech(samples, window: start..<start + 160))
    }
    let speech = pieces.compactMap(\.speech)
    #expect(speech.count == 2)
    #expect(speech.flatMap(\.isSpeech) == whole)
    for (piece, windows) in zip(pieces, speech) {
      #expect(windows.isSpeech.count == piece.samples.count / windows.length)
      #expect(windows.match(activity))
    }
    // Other thresholds, other windows or another detector did not judge them.
    let thresholds = VoiceActivity(
      detector: EnergyVoiceActivityDetector(), threshold: 0.9, releaseThreshold: 0.1)
    #expect(!speech[0].match(thresholds))
    var windows = speech[0]
    windows.length = 512
    #expect(!windows.match(activity))
    var detector = speech[0]
    detector.detector = "Moonshine.SileroVoiceActivityDetector"
    #expect(!detector.match(activity))
  }

  @Test func pausesShorterThanTheMinimumAreNotCut() throws {
    let samples = tone(2.5) + background(0.3) + tone(2.5)
    #expect(try segments(of: samples).count == 1)
    // With a shorter minimum pause, the same gap is a cut.
    let shortPauses = UtteranceSegmenter(minimumPause: 0.2)
    #expect(try segments(of: samples, shortPauses).count == 2)
  }

  @Test func piecesAreAtLeastTheMinimumDuration() throws {
    // Pauses every 1.5 s: with a 2 s minimum, every other pause is a cut.
    var samples: [Int16] = []
    for _ in 0..<6 { samples += tone(1) + background(0.6) }
    let pieces = try segments(of: samples)
    #expect(pieces.dropLast().allSatisfy { Double($0.samples.count) / 16000 >= 2 })
    #expect(pieces.count == 3)
    #expect(pieces.flatMap(\.samples) == samples)
  }

  @Test func speechWithoutPausesIsCutAtTheMaximumDuration() throws {
    let samples = tone(7)
    let pieces = try segments(of: samples, UtteranceSegmenter(maximumDuration: 3))
    // Each cut is at the quietest frame of the piece's second half: 1.5 to 3 s.
    #expect(pieces.count >= 3)
    #expect(pieces.allSatisfy { $0.samples.count <= 3 * 16000 })
    #expect(pieces.dropLast().allSatisfy { $0.samples.count >= 3 * 8000 })
    #expect(pieces.flatMap(\.samples) == samples)
    // Speech may go on across such a cut (a file mends sentences there); the rest is no cut.
    #expect(pieces.dropLast().allSatisfy { $0.isCutForLength })
    #expect(pieces.last?.isCutForLength == false)
  }

  @Test func digitalSilenceCountsAsAPause() throws {
    let silence = [Int16](repeating: 0, count: 16000)
    let samples = tone(2.5) + silence + tone(2.5)
    let pieces = try segments(of: samples)
    #expect(pieces.count == 2)
    #expect(abs(Double(pieces[1].start) / 16000 - 3) < 0.03)
    #expect(pieces.allSatisfy { !$0.isCutForLength })
  }

  @Test func aRecordingWithPausesIsCutOnlyInThem() throws {
    // goforward.raw: "go forward ten meters", with silence before and after; three copies
    // back to back are cut between the copies, not inside the words.
    let goForward = try goForwardSamples()
    let samples = goForward + goForward + goForward
    let pieces = try segments(of: samples)
    #expect(pieces.count == 3)
    #expect(pieces.flatMap(\.samples) == samples)
    let length = Double(goForward.count) / 16000
    for (index, piece) in pieces.enumerated().dropFirst() {
      // Each cut is near the end of a copy: in its trailing or the next one's leading silence.
      #expect(abs(piece.startTime - Double(index) * length) < 0.6)
    }
  }
}
