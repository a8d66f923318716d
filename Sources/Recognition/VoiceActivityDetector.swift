import Foundation

/// A voice-activity detector: judges a stream of 16 kHz audio one window at a time and says how
/// likely each window holds speech.
///
/// A detector keeps state from window to window (a neural detector remembers what it heard), so
/// one detector serves one stream, fed from one thread; ``reset()`` starts a new stream. What it
/// can share (a loaded model) it shares itself. Two detectors come with transcribe: Silero VAD
/// (a small neural network run by ONNX Runtime, in the `Moonshine` module) and
/// ``EnergyVoiceActivityDetector`` (frame energy against the tracked background level).
///
/// Callers rarely use a detector directly: ``VoiceActivity`` turns its probabilities into
/// speech and pauses with a threshold.
///
/// ```swift
/// let detector = EnergyVoiceActivityDetector()
/// samples.withUnsafeBufferPointer { samples in
///   let window = UnsafeBufferPointer(rebasing: samples[0..<detector.windowLength])
///   print(try detector.speechProbability(of: window))
/// }
/// ```
public protocol VoiceActivityDetector: AnyObject, SendableMetatype {
  /// Samples (at 16 kHz) in each window the detector judges.
  var windowLength: Int { get }

  /// The probability, from 0 to 1, that the stream's next window holds speech.
  ///
  /// - Parameter window: exactly ``windowLength`` samples, following the last window judged.
  /// - Throws: `RecognitionFailure.decoderFailure` when the detector's model fails to run.
  func speechProbability(
    of window: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure) -> Float

  /// Forgets the stream: the next window starts a new one.
  func reset()
}

/// The voice-activity detector a recognizer or segmenter uses, and its threshold: a value that
/// makes a fresh detector for each stream.
///
/// ``energy`` is always available; the `Moonshine` module adds Silero VAD
/// (`VoiceActivityDetection.silero(…)`), which hears speech under steady noise that the energy
/// detector takes for background.
///
/// ```swift
/// var voiceActivity = try VoiceActivityDetection.energy.makeStream()
/// let speaking = try voiceActivity.isSpeech(window)
/// ```
public struct VoiceActivityDetection: Sendable, CustomStringConvertible {
  /// The detector's name as status lines and messages say it, e.g. `Silero VAD`.
  public var name: String
  /// The speech probability from which a window is speech (0 < threshold < 1); a stream goes
  /// back to a pause when the probability falls below ``releaseThreshold``.
  public var threshold: Double
  /// What tells two detections apart besides their names and thresholds, e.g. a model's path.
  public var source: String
  private let make: @Sendable () throws(RecognitionFailure) -> any VoiceActivityDetector

  /// The default threshold: 0.5 (Silero VAD's own).
  public static let defaultThreshold = 0.5

  /// Creates a detection from a detector factory.
  ///
  /// - Parameters:
  ///   - name: what messages call the detector.
  ///   - threshold: the speech probability from which a window is speech.
  ///   - source: what else distinguishes this detection (a model file's path).
  ///   - make: makes a detector for a new stream.
  public init(
    name: String, threshold: Double = defaultThreshold, source: String = "",
    make: @escaping @Sendable () throws(RecognitionFailure) -> any VoiceActivityDetector
  ) {
    self.name = name
    self.threshold = threshold
    self.source = source
    self.make = make
  }

  /// Frame energy against the background level (``EnergyVoiceActivityDetector``): needs no
  /// model, but under steady noise it takes quiet speech for background.
  public static let energy = VoiceActivityDetection(
    name: "energy detector", source: energySource
  ) {
    EnergyVoiceActivityDetector()
  }

  private static let energySource = "energy"

  /// Whether this is the energy detector (``energy``, whatever its threshold).
  public var isEnergy: Bool { source == Self.energySource }

  /// The probability below which a stream that is speaking goes back to a pause: 0.15 under the
  /// threshold (Silero VAD's reference wrapper does the same), so speech that wavers around the
  /// threshold is not chopped into pieces.
  public var releaseThreshold: Double { max(threshold - 0.15, 0.01) }

  /// A detector for a new stream, with this detection's thresholds.
  ///
  /// - Throws: what making the detector throws (a model that cannot be loaded).
  public func makeStream() throws(RecognitionFailure) -> VoiceActivity {
    VoiceActivity(detector: try make(), threshold: threshold, releaseThreshold: releaseThreshold)
  }

  /// The detector's name, e.g. `Silero VAD`.
  public var description: String { name }
}

extension VoiceActivityDetection: Equatable {
  /// Two detections are the same when they have the same name, threshold and source.
  public static func == (left: Self, right: Self) -> Bool {
    left.name == right.name && left.threshold == right.threshold && left.source == right.source
  }
}

extension VoiceActivityDetection: Hashable {
  /// Hashes the name, threshold and source.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(threshold)
    hasher.combine(source)
  }
}

/// One stream's voice activity: a detector and the threshold that turns its probabilities into
/// speech and pauses.
///
/// A window is speech once its probability reaches the threshold, and the stream stays in speech
/// until a window falls below the (lower) release threshold: the hysteresis keeps a word whose
/// probability wavers from being cut.
///
/// ```swift
/// var activity = try VoiceActivityDetection.energy.makeStream()
/// for start in stride(from: 0, through: samples.count - activity.windowLength, by: activity.windowLength) {
///   let isSpeech = try samples.withUnsafeBufferPointer {
///     try activity.isSpeech(UnsafeBufferPointer(rebasing: $0[start..<start + activity.windowLength]))
///   }
/// }
/// ```
public struct VoiceActivity {
  /// The stream's detector.
  public let detector: any VoiceActivityDetector
  /// The probability from which a window is speech.
  public let threshold: Float
  /// The probability below which speech ends.
  public let releaseThreshold: Float
  /// Whether the last window was speech.
  public private(set) var isSpeaking = false
  /// The last window's speech probability.
  public private(set) var lastProbability: Float = 0

  /// Creates a stream's voice activity over `detector`.
  public init(detector: any VoiceActivityDetector, threshold: Double, releaseThreshold: Double) {
    self.detector = detector
    self.threshold = Float(threshold)
    self.releaseThreshold = Float(min(releaseThreshold, threshold))
  }

  /// Samples in each window: the detector's.
  public var windowLength: Int { detector.windowLength }

  /// Judges the stream's next window (``windowLength`` samples) and returns whether it is speech.
  public mutating func isSpeech(
    _ window: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure) -> Bool {
    let probability = try detector.speechProbability(of: window)
    lastProbability = probability
    if probability >= threshold {
      isSpeaking = true
    } else if probability < releaseThreshold {
      isSpeaking = false
    }
    return isSpeaking
  }

  /// ``isSpeech(_:)`` for a window of an array.
  public mutating func isSpeech(
    _ samples: [Int16], window range: Range<Int>
  ) throws(RecognitionFailure) -> Bool {
    try samples.withUnsafeBufferPointer { samples throws(RecognitionFailure) in
      try isSpeech(UnsafeBufferPointer(rebasing: samples[range]))
    }
  }

  /// Forgets the stream: the detector's state and whether it was speaking.
  public mutating func reset() {
    detector.reset()
    isSpeaking = false
    lastProbability = 0
  }
}

/// ``SpeechActivityDetector`` (frame energy against the tracked background level) as a
/// ``VoiceActivityDetector`` over 10 ms windows: its probabilities are 0 or 1, so any threshold
/// gives the same answers.
public final class EnergyVoiceActivityDetector: VoiceActivityDetector {
  private var detector = SpeechActivityDetector()

  /// Creates a detector that assumes a quiet room until it hears quieter audio.
  public init() {}

  /// 10 ms.
  public var windowLength: Int { SpeechActivityDetector.frameLength }

  /// 1 when the window's energy is well above the background level, else 0.
  public func speechProbability(
    of window: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure) -> Float {
    detector.isSpeech(energy: SpeechActivityDetector.energy(of: window)) ? 1 : 0
  }

  /// Starts over from a quiet room's level.
  public func reset() {
    detector = SpeechActivityDetector()
  }
}
