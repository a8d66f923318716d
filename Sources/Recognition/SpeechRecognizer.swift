import Foundation

/// A speech recognition engine's decoder: fed 16 kHz mono samples, it splits them into
/// utterances and reports partial and final words.
///
/// A recognizer is not thread-safe: one thread feeds it (a pool's worker, or a task's own
/// thread). What it holds that can be shared (a loaded model) it shares itself.
///
/// ```swift
/// let recognizer: some SpeechRecognizer = try Decoder(configuration: configuration)
/// for event in try samples.withUnsafeBufferPointer({ try recognizer.process($0) }) {
///   if case .utterance(let words) = event { print(words.map(\.text)) }
/// }
/// if let words = try recognizer.finish() { print(words.map(\.text)) }
/// ```
public protocol SpeechRecognizer: AnyObject, SendableMetatype {
  /// Decodes a chunk of samples (16 kHz, mono, signed 16-bit).
  ///
  /// - Returns: a partial hypothesis that changed, and the final words of an utterance that
  ///   ended, in order. Word times count from the start of the stream.
  func process(
    _ samples: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure)
    -> [RecognitionEvent]

  /// Ends the utterance in progress, if any, and returns its final words; the recognizer can go
  /// on decoding afterwards.
  func finish() throws(RecognitionFailure) -> [RecognizedWord]?

  /// Forgets everything heard before, so what follows decodes as if the recognizer had just been
  /// loaded: the utterance in progress is dropped and word times count from the next sample.
  func reset() throws(RecognitionFailure)

  /// Sets, until the next ``reset()``, the voice-activity detector's speech threshold and the
  /// pause that ends an utterance, each `nil` to keep the configuration's: one stream's own
  /// settings (a Realtime session's server VAD) on a recognizer borrowed from a pool. A
  /// recognizer that cannot change them ignores them.
  func tuneVoiceActivity(threshold: Double?, endOfUtteranceSilence: TimeInterval?)

  /// Sets, until the next ``reset()``, how utterances end (`true`: ``Endpointing/sentence``,
  /// `false`: ``Endpointing/fixed``) and the longest pause an unfinished sentence is held open
  /// through, each `nil` to keep the configuration's: a Realtime session's `semantic_vad` or
  /// `server_vad`. A recognizer that always ends utterances after a fixed pause ignores them.
  func tuneEndpointing(judgesSentences: Bool?, maximumSilence: TimeInterval?)

  /// Sets, until the next ``reset()``, the window in which speech that resumes after an
  /// utterance ended a sentence is heard together with it (seconds from the end of its speech to
  /// the start of the new speech; `nil`: never): when the two then read as one sentence, the
  /// recognizer reports a ``RecognitionEvent/revision(_:)`` of the last utterance instead of a
  /// new one. A recognizer that cannot hear utterances together ignores it.
  func tuneResumption(window: TimeInterval?)

  /// Whether more of the stream is already waiting to be fed after the next chunk (audio that
  /// arrived faster than it is decoded, or the stream's end): the feeder sets it before each
  /// ``process(_:)``. A recognizer then skips work that only serves partial results, which would
  /// be stale before anyone saw them, and decodes what the final words need. A recognizer whose
  /// partial results are cheap ignores it.
  var isCatchingUp: Bool { get set }

  /// Decodes a piece of a longer input on its own (a file cut at pauses), as if the recognizer
  /// had just been loaded, and returns its events with word times counted from the start of the
  /// whole input (`offset` seconds before the piece). Utterances without words are left out.
  /// The pauses set by ``tuneVoiceActivity(threshold:endOfUtteranceSilence:)`` and
  /// ``tuneEndpointing(judgesSentences:maximumSilence:)`` before it apply to the piece.
  func decodeSegment(
    _ samples: [Int16], startingAt offset: TimeInterval
  )
    throws(RecognitionFailure) -> [RecognitionEvent]

  /// ``decodeSegment(_:startingAt:)``, given what a voice-activity detector already said of the
  /// piece's windows (``UtteranceSegmenter/Segment/speech``): a recognizer with the same
  /// detector may take those verdicts instead of running its own over the piece again.
  func decodeSegment(
    _ samples: [Int16], startingAt offset: TimeInterval, speech: SpeechWindows?
  )
    throws(RecognitionFailure) -> [RecognitionEvent]
}

extension SpeechRecognizer {
  /// Keeps the configuration's settings.
  public func tuneVoiceActivity(threshold: Double?, endOfUtteranceSilence: TimeInterval?) {}

  /// Keeps the fixed pause.
  public func tuneEndpointing(judgesSentences: Bool?, maximumSilence: TimeInterval?) {}

  /// Never revises an utterance.
  public func tuneResumption(window: TimeInterval?) {}

  /// Partial results are cheap: nothing to skip.
  public var isCatchingUp: Bool {
    get { false }
    set {}
  }

  /// Listens to the piece itself: the verdicts are not used.
  public func decodeSegment(
    _ samples: [Int16], startingAt offset: TimeInterval, speech: SpeechWindows?
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    try decodeSegment(samples, startingAt: offset)
  }

  /// Feeds the piece in chunks of 2048 samples, as a file reader would, then finishes it.
  public func decodeSegment(
    _ samples: [Int16], startingAt offset: TimeInterval
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    try reset()
    var events: [RecognitionEvent] = []
    let chunkSize = 2048
    for start in stride(from: 0, to: samples.count, by: chunkSize) {
      let end = min(start + chunkSize, samples.count)
      events += try samples.withUnsafeBufferPointer { buffer throws(RecognitionFailure) in
        try process(UnsafeBufferPointer(rebasing: buffer[start..<end]))
      }
    }
    if let words = try finish() {
      events.append(.utterance(words))
    }
    return events.compactMap { event in
      if case let .utterance(words) = event, words.isEmpty { return nil }
      return event.shifted(by: offset)
    }
  }
}

/// The audio format every recognizer takes.
public enum RecognitionAudio {
  /// Samples per second.
  public static let sampleRate = 16_000
}
