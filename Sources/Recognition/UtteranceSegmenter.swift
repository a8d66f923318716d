import Foundation

/// Cuts a stream of 16 kHz samples into pieces at pauses, ahead of decoding, so the pieces can be
/// decoded independently (and at the same time) with the same words as one decoder in one go.
///
/// A pause is a run of windows that the voice-activity detector does not take for speech, at
/// least ``minimumPause`` long (Silero VAD's 32 ms windows, or the energy detector's 10 ms
/// frames; see ``VoiceActivity``). A piece is cut in the middle of the first pause that ends at
/// least ``minimumDuration`` after the piece started, so each side keeps half the pause as
/// padding and no word is cut. With no pause for ``maximumDuration``, the piece is cut at the
/// least speech-like window of its second half (the lowest speech probability, then the lowest
/// energy).
///
/// With the pause as long as the decoder's end-of-utterance silence, the decoder would have
/// ended its utterance in that pause too, so cutting there does not change what is recognized.
///
/// ```swift
/// var segmenter = UtteranceSegmenter(voiceActivity: try detection.makeStream())
/// while let samples = try file.read() {
///   for segment in try segmenter.append(samples) { decode(segment.samples, at: segment.start) }
/// }
/// if let last = segmenter.finish() { decode(last.samples, at: last.start) }
/// ```
public struct UtteranceSegmenter {
  /// A piece of the stream.
  public struct Segment: Equatable, Sendable {
    /// The index of the piece's first sample in the whole stream.
    public var start: Int
    /// The piece's samples.
    public var samples: [Int16]
    /// Whether the piece was cut for its length (``maximumDuration``) rather than at a pause of
    /// ``minimumPause``: speech may go on across the cut.
    public var isCutForLength: Bool
    /// What the segmenter's detector said of each of the piece's whole windows, in order, so a
    /// decoder with the same detector need not listen again; `nil` when not known.
    public var speech: SpeechWindows?

    /// Creates a piece.
    public init(
      start: Int, samples: [Int16], isCutForLength: Bool = false, speech: SpeechWindows? = nil
    ) {
      self.start = start
      self.samples = samples
      self.isCutForLength = isCutForLength
      self.speech = speech
    }

    /// Where the piece starts, in seconds.
    public var startTime: TimeInterval {
      Double(start) / Double(RecognitionAudio.sampleRate)
    }
  }

  /// The shortest run of quiet audio that counts as a pause, in seconds.
  public var minimumPause: TimeInterval
  /// The shortest piece, in seconds: pauses closer than this to the piece's start are kept.
  public var minimumDuration: TimeInterval
  /// The longest piece, in seconds.
  public var maximumDuration: TimeInterval

  /// Samples per analysis window: the detector's.
  private let frameLength: Int

  private var pending: [Int16] = []
  private var pendingStart = 0
  private var analyzed = 0
  /// Each analysed window's speech probability and energy, for the quietest point.
  private var levels: [Level] = []
  private var quietRunStart: Int?
  private var activity: VoiceActivity
  /// Each analysed window's verdict (speech or not), for the pieces.
  private var verdicts: [Bool] = []

  /// How speech-like a window is: its probability first, then its energy.
  private struct Level: Comparable {
    var probability: Float
    var energy: Double

    static func < (left: Level, right: Level) -> Bool {
      (left.probability, left.energy) < (right.probability, right.energy)
    }
  }

  /// Creates a segmenter; by default pauses of 0.5 s (pocketsphinx's end-of-utterance silence),
  /// pieces of 2 to 30 s, and the energy detector (``EnergyVoiceActivityDetector``).
  public init(
    minimumPause: TimeInterval = 0.5, minimumDuration: TimeInterval = 2,
    maximumDuration: TimeInterval = 30, voiceActivity: VoiceActivity? = nil
  ) {
    self.minimumPause = minimumPause
    self.minimumDuration = minimumDuration
    self.maximumDuration = max(maximumDuration, 2 * minimumPause, 0.1)
    let activity =
      voiceActivity
      ?? VoiceActivity(
        detector: EnergyVoiceActivityDetector(),
        threshold: VoiceActivityDetection.defaultThreshold,
        releaseThreshold: VoiceActivityDetection.energy.releaseThreshold)
    self.activity = activity
    self.frameLength = activity.windowLength
  }

  /// Adds samples and returns the pieces that are now complete.
  ///
  /// - Throws: what the voice-activity detector throws (its model failed to run).
  public mutating func append(_ samples: [Int16]) throws(RecognitionFailure) -> [Segment] {
    pending += samples
    var segments: [Segment] = []
    let frame = frameLength
    let rate = Double(RecognitionAudio.sampleRate)
    let pauseSamples = Int(minimumPause * rate)
    let shortest = Int(minimumDuration * rate)
    let longest = Int(maximumDuration * rate)
    while analyzed + frame <= pending.count {
      let isSpeech = try activity.isSpeech(pending, window: analyzed..<analyzed + frame)
      verdicts.append(isSpeech)
      levels.append(
        Level(
          probability: activity.lastProbability,
          energy: SpeechActivityDetector.energy(of: pending[analyzed..<analyzed + frame])))
      if !isSpeech {
        if quietRunStart == nil { quietRunStart = analyzed }
      } else if let runStart = quietRunStart {
        quietRunStart = nil
        let middle = runStart + (analyzed - runStart) / (2 * frame) * frame
        if analyzed - runStart >= pauseSamples, middle >= shortest {
          segments.append(cut(at: middle))
        }
      }
      analyzed += frame
      if analyzed >= longest {
        segments.append(cut(at: quietestFrameInSecondHalf(), forLength: true))
        quietRunStart = nil
      }
    }
    return segments
  }

  /// Returns the rest of the stream as the last piece, if any samples are left.
  public mutating func finish() -> Segment? {
    defer {
      pending = []
      levels = []
      verdicts = []
      analyzed = 0
      quietRunStart = nil
    }
    guard !pending.isEmpty else { return nil }
    return Segment(start: pendingStart, samples: pending, speech: windows(verdicts[...]))
  }

  /// The verdicts of a piece's windows, with what judged them.
  private func windows(_ verdicts: ArraySlice<Bool>) -> SpeechWindows {
    SpeechWindows(
      length: frameLength, threshold: activity.threshold,
      releaseThreshold: activity.releaseThreshold,
      detector: String(reflecting: type(of: activity.detector)), isSpeech: Array(verdicts))
  }

  private mutating func cut(at index: Int, forLength: Bool = false) -> Segment {
    let windowCount = index / frameLength
    let segment = Segment(
      start: pendingStart, samples: Array(pending[..<index]), isCutForLength: forLength,
      speech: windows(verdicts[..<windowCount]))
    pending.removeFirst(index)
    levels.removeFirst(windowCount)
    verdicts.removeFirst(windowCount)
    pendingStart += index
    analyzed -= index
    if let runStart = quietRunStart {
      quietRunStart = runStart >= index ? runStart - index : nil
    }
    return segment
  }

  private func quietestFrameInSecondHalf() -> Int {
    let half = levels.count / 2
    var best = max(half, 1)
    for index in max(half, 1)..<levels.count where levels[index] < levels[best] {
      best = index
    }
    return best * frameLength
  }
}

/// A voice-activity detector's verdicts on the whole windows of a piece of audio, from its first
/// sample, and what judged them: a decoder whose own detector is the same kind, with the same
/// windows and thresholds, can take them instead of listening again.
///
/// The detector that judged them heard the stream before the piece, as a live stream's does; a
/// detector started at the piece would begin without that context.
public struct SpeechWindows: Equatable, Sendable {
  /// Samples per window.
  public var length: Int
  /// The probability from which a window was speech.
  public var threshold: Float
  /// The probability below which speech ended.
  public var releaseThreshold: Float
  /// The detector's type, module-qualified.
  public var detector: String
  /// Each window's verdict, in order.
  public var isSpeech: [Bool]

  /// Creates the verdicts.
  public init(
    length: Int, threshold: Float, releaseThreshold: Float, detector: String, isSpeech: [Bool]
  ) {
    self.length = length
    self.threshold = threshold
    self.releaseThreshold = releaseThreshold
    self.detector = detector
    self.isSpeech = isSpeech
  }

  /// Whether `activity` judges as these were judged: the same detector type, windows and
  /// thresholds.
  public func match(_ activity: VoiceActivity) -> Bool {
    length == activity.windowLength && threshold == activity.threshold
      && releaseThreshold == activity.releaseThreshold
      && detector == String(reflecting: type(of: activity.detector))
  }
}
