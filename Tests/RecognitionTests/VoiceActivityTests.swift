import Foundation
import Testing

@testable import Recognition

/// A detector that answers a script of probabilities, one per window (then 0).
final class ScriptedDetector: VoiceActivityDetector {
  let windowLength: Int
  var probabilities: [Float]
  var judged = 0
  var resets = 0
  var failure: RecognitionFailure?

  init(windowLength: Int = 512, probabilities: [Float]) {
    self.windowLength = windowLength
    self.probabilities = probabilities
  }

  func speechProbability(
    of window: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure) -> Float {
    #expect(window.count == windowLength)
    if let failure { throw failure }
    defer { judged += 1 }
    return judged < probabilities.count ? probabilities[judged] : 0
  }

  func reset() { resets += 1 }
}

struct VoiceActivityTests {
  private let window = [Int16](repeating: 0, count: 512)

  @Test func speechStartsAtTheThresholdAndEndsBelowTheReleaseThreshold() throws {
    let detector = ScriptedDetector(probabilities: [0.2, 0.6, 0.4, 0.36, 0.3, 0.49, 0.5])
    var activity = VoiceActivity(detector: detector, threshold: 0.5, releaseThreshold: 0.35)
    var answers: [Bool] = []
    for _ in 0..<7 { answers.append(try activity.isSpeech(window, window: 0..<512)) }
    // 0.4 and 0.36 keep speech going (above 0.35); 0.3 ends it; 0.49 does not start it again.
    #expect(answers == [false, true, true, true, false, false, true])
    #expect(activity.lastProbability == 0.5)
    activity.reset()
    #expect(!activity.isSpeaking)
    #expect(detector.resets == 1)
  }

  @Test func aDetectionsReleaseThresholdIsBelowItsThreshold() {
    var detection = VoiceActivityDetection.energy
    #expect(detection.isEnergy)
    #expect(detection.threshold == 0.5)
    #expect(abs(detection.releaseThreshold - 0.35) < 1e-12)
    detection.threshold = 0.1
    #expect(detection.releaseThreshold == 0.01)
    #expect(detection != .energy)
    let other = VoiceActivityDetection(name: "scripted", source: "test") {
      ScriptedDetector(probabilities: [])
    }
    #expect(!other.isEnergy)
    #expect(other != .energy)
  }

  @Test func theEnergyDetectorHearsLoudFramesAboveAQuietRoom() throws {
    var activity = try VoiceActivityDetection.energy.makeStream()
    #expect(activity.windowLength == 160)
    let quiet = [Int16](repeating: 3, count: 160)
    let loud = (0..<160).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 16000)) }
    #expect(try !activity.isSpeech(quiet, window: 0..<160))
    #expect(try activity.isSpeech(loud, window: 0..<160))
    #expect(activity.lastProbability == 1)
  }

  @Test func theSegmenterCutsWhereTheDetectorHearsAPauseNotWhereTheEnergyDrops() throws {
    // A steady tone (the energy detector's "speech" throughout) that the detector hears as
    // speech for 2.5 s, then a 1 s pause, then speech: the cut is in the detector's pause.
    let windows = 6 * 16000 / 512
    let pauseStart = 2.5 * 16000 / 512
    let pauseEnd = 3.5 * 16000 / 512
    let probabilities: [Float] = (0..<windows).map {
      Double($0) >= pauseStart && Double($0) < pauseEnd ? 0.05 : 0.9
    }
    let detector = ScriptedDetector(probabilities: probabilities)
    let activity = VoiceActivity(detector: detector, threshold: 0.5, releaseThreshold: 0.35)
    var segmenter = UtteranceSegmenter(voiceActivity: activity)
    let samples = (0..<(6 * 16000)).map {
      Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 16000))
    }
    var pieces = try segmenter.append(samples)
    if let last = segmenter.finish() { pieces.append(last) }
    #expect(pieces.count == 2)
    #expect(pieces.flatMap(\.samples) == samples)
    // The middle of the pause, 3.0 s, within a window.
    #expect(abs(pieces[1].startTime - 3.0) < 0.04)
  }

  @Test func longSpeechIsCutAtItsLeastSpeechLikeWindow() throws {
    // Speech throughout, with one window (at 2.4 s) the detector is least sure of.
    let dip = Int(2.4 * 16000) / 512
    let probabilities: [Float] = (0..<200).map { $0 == dip ? 0.6 : 0.95 }
    let detector = ScriptedDetector(probabilities: probabilities)
    let activity = VoiceActivity(detector: detector, threshold: 0.5, releaseThreshold: 0.35)
    var segmenter = UtteranceSegmenter(maximumDuration: 3, voiceActivity: activity)
    let samples = [Int16](repeating: 1000, count: 4 * 16000)
    let pieces = try segmenter.append(samples)
    #expect(pieces.first?.samples.count == dip * 512)
  }

  @Test func aDetectorThatFailsFailsTheSegmenter() {
    let detector = ScriptedDetector(probabilities: [])
    detector.failure = .decoderFailure("Silero VAD failed: test")
    let activity = VoiceActivity(detector: detector, threshold: 0.5, releaseThreshold: 0.35)
    var segmenter = UtteranceSegmenter(voiceActivity: activity)
    #expect(throws: RecognitionFailure.decoderFailure("Silero VAD failed: test")) {
      try segmenter.append([Int16](repeating: 0, count: 1024))
    }
  }
}
