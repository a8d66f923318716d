import Foundation
import Recognition
import Synchronization

/// A Moonshine speech recognizer: fed 16 kHz mono samples, it finds utterances with its
/// voice-activity detector and transcribes each with the process's shared ``MoonshineModel``.
///
/// Moonshine transcribes a whole piece of audio at a time, so the recognizer cuts the stream
/// itself, with ``MoonshineConfiguration/voiceActivity`` (Silero VAD's 32 ms windows, or the
/// energy detector's 10 ms frames): an utterance starts at the first speech window (with 0.3 s of
/// the audio before it) and ends after ``MoonshineConfiguration/endOfUtteranceSilence`` without
/// speech or at ``MoonshineConfiguration/maximumUtteranceDuration``. Utterances with less than
/// 80 ms of speech are dropped unheard (the model invents words for noise and silence).
///
/// While an utterance goes on, partial results come from transcribing it again (a look), with the
/// previous look's tokens as a prefix (see ``MoonshineModel/transcribe(_:prefix:hotwords:)``). A look costs
/// in proportion to the utterance's length, so looks are spaced by their cost: the next one waits
/// for at least 0.1 s and for the time it is expected to take (the last look's, in proportion to
/// the audio's length) times ``PartialResults/costFactor`` (1 for `fast`, 4 for `balanced`) times
/// ``paceFactor(speaking:cores:)`` (1 while the streams speaking keep at most half the cores busy,
/// more as more speak) — in audio time *and* in wall-clock time, so audio that arrives faster
/// than it is spoken (a client sending a file) gets no more looks per second than a speaker does.
/// A look happens at most once per ``process(_:)``, at the end of the chunk, and never while
/// ``isCatchingUp``: the audio already waiting would make it stale. When a pause starts, the
/// utterance is transcribed once early, so its final words are ready when the pause is long
/// enough to end it.
///
/// With ``MoonshineConfiguration/endpointing`` `.sentence`, the utterance is transcribed early
/// in a pause (the early look, at the end of a chunk; or when the judgement needs it) and again
/// at the shortest pause (``MoonshineConfiguration/endOfUtteranceSilence``), with what its final
/// words hear; ``SentenceEnd`` judges the sentence from the two, and a finished one ends there,
/// any other after ``MoonshineConfiguration/maximumEndOfUtteranceSilence`` unless speech resumes
/// (which drops the judgement). With Silero VAD a pause counts from where the sound of speech
/// ends (``SoundEnd``), which the detector hears late, and the early look hears 0.13 s of it;
/// with the energy detector, from its last speech frame, and the early look hears 0.08 s. When
/// both looks fall due in one chunk they run at once, on two cores. Pauses are counted in
/// audio, so a stream ends its utterances at the same places however fast it arrives. A file's pieces
/// (``decodeSegment(_:startingAt:)``) look ahead instead: each stretch of speech is transcribed
/// whole and split where its text ends a sentence at a pause (``SpokenSentences``).
///
/// Words carry Moonshine's casing and punctuation (`Go`, `forward`, `ten`, `meters.`); their
/// times are estimates that share the utterance's speech among its words by length, and they
/// have no alternatives.
///
/// A recognizer is not thread-safe: one thread feeds it. Any number of recognizers, on any
/// threads, share one model.
///
/// ```swift
/// let recognizer = try MoonshineRecognizer(configuration: MoonshineConfiguration())
/// for event in try samples.withUnsafeBufferPointer({ try recognizer.process($0) }) {
///   if case .utterance(let words) = event { print(words.map(\.text).joined(separator: " ")) }
/// }
/// if let words = try recognizer.finish() { print(words.map(\.text)) }
/// ```
public final class MoonshineRecognizer: SpeechRecognizer {
  /// The configuration the recognizer was made with.
  public let configuration: MoonshineConfiguration
  /// The shared model it transcribes with; `nil` when another engine's ``transcriber`` writes
  /// the utterances down.
  public let model: MoonshineModel?
  /// Another engine's decoder that writes the utterances down (Whisper), in place of
  /// Moonshine's model: the recognizer cuts the stream and judges sentences for it.
  public let transcriber: (any UtteranceTranscriber)?

  /// Audio kept from before an utterance's first speech window: 0.3 s.
  ///
  /// Measured with Silero VAD on goforward.raw and the LibriVox clips, clean and under pink
  /// noise at 10 and 5 dB (16 files): with 0.3 s of padding on either side the model reads 15
  /// of them exactly as it reads the whole file, and the 16th better; with 0.2 s, four differ
  /// (near ties such as `old-sposed` for `old-disposed`).
  static let leadingSamples = RecognitionAudio.sampleRate * 3 / 10
  /// Audio transcribed after an utterance's last speech window: 0.3 s.
  static let trailingSamples = RecognitionAudio.sampleRate * 3 / 10
  /// The least speech (in samples) an utterance needs to be transcribed: 80 ms.
  static let minimumSpeechSamples = RecognitionAudio.sampleRate * 8 / 100
  /// The least new audio between partial results: 0.1 s.
  static let partialInterval = 0.1
  /// The pause the early look of sentence endpointing hears after the energy detector's last
  /// speech frame: 0.08 s (about 0.1 s after the last word ends).
  static let earlySamples = RecognitionAudio.sampleRate * 8 / 100
  /// The pause the early look hears after where the sound of speech ends (``SoundEnd``, with
  /// Silero VAD): 0.13 s. Until 30 Nov 2026 the early look came 0.08 s after Silero's end of
  /// speech, which lags the sound by 0.03–0.07 s on most speech, and the rule's thresholds were
  /// set with it there; 0.08 s after the sound's end the model still expects more words after
  /// many finished sentences (P(another word) 0.005–0.009 after "…do something." and "…ninety
  /// two."), and holds them (`Benchmarks/endpointing/README.md`, "Counting the pause from the
  /// sound's end").
  static let earlySamplesAfterSound = RecognitionAudio.sampleRate * 13 / 100

  /// How many times a look's cost the next look waits for, beyond the configuration's own
  /// factor, with `speaking` streams transcribing speech on `cores` cores: 1 while they keep at
  /// most half the cores busy (each transcribes on one core), then in proportion to the streams
  /// speaking (up to 8), so the looks of all streams together keep about the same share of the
  /// machine busy however many speak, and the final words of each keep up.
  static func paceFactor(speaking: Int, cores: Int) -> Double {
    min(8, max(1, 2 * Double(speaking) / Double(max(1, cores))))
  }

  /// Samples per voice-activity window.
  private let frameLength: Int
  private var detector: VoiceActivity
  /// The pause that ends an utterance (with sentence endpointing, the shortest): the
  /// configuration's, or a stream's own until the reset.
  private var endOfUtteranceSilence: TimeInterval
  /// The pause a stream asked for, until the reset.
  private var tunedSilence: TimeInterval?
  /// How utterances end, and the longest pause an unfinished sentence is held open through: the
  /// configuration's, or a stream's own until the reset.
  private var endpointing: Endpointing
  private var maximumSilence: TimeInterval
  /// Samples since the last reset, analysed or not.
  private var position = 0
  /// Samples of an incomplete frame, waiting for the rest.
  private var pendingFrame: [Int16] = []
  /// The last ``leadingSamples`` of audio while no utterance is in progress.
  private var leading: [Float] = []
  private var utterance: Utterance?
  /// How long the last transcription took, in seconds, and how many samples it transcribed:
  /// they set the pace of partial results.
  private var lastDecodeSeconds: TimeInterval = 0
  private var lastDecodeSamples = 0
  /// Whether the last piece ``decodeSegment(_:startingAt:)`` decoded with sentence endpointing
  /// ends its last sentence beyond doubt (``SentenceEnd/isCertain(_:)``): `false` when it may
  /// go on in what follows the piece, or when the piece was not judged that way.
  public private(set) var lastSegmentEndsSentence = false
  /// Whether partial results are left out (while ``decodeSegment(_:startingAt:)`` streams).
  private var suppressesPartials = false
  /// Whether more of the stream is already waiting after the next chunk: no look is taken then.
  public var isCatchingUp = false
  /// Whether the chunk being processed had a speech window: a look during speech needs one.
  private var heardSpeechInChunk = false
  /// The clock that spaces looks in wall-clock time (a test's own, to feed audio "as spoken").
  var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
  /// What a transcription of so many samples counts as having cost, in seconds, given what it
  /// took on the wall clock: what it took, unless a test models the cost (so that the pace of
  /// looks it checks does not depend on how fast the machine running it is).
  var decodeCost: @Sendable (_ samples: Int, _ measured: TimeInterval) -> TimeInterval = {
    _, measured in measured
  }
  /// Where each transcription's line goes (``DecodeLog``): standard error with
  /// `TRANSCRIBE_LOG_DECODES=1`, else nowhere; a test's own to read what was transcribed.
  var decodeLog: (@Sendable (String) -> Void)? = DecodeLog.standardError
  /// The streams with speech in progress that share the machine's cores with this one, and how
  /// many cores there are: they set the pace of partial results.
  let speakingStreams: SpeakingStreams
  let cores: Int
  /// The phrases the decoder favours: the configuration's, or a stream's own until the reset
  /// (see ``favour(_:boost:)``).
  var hotwords: MoonshineHotwords?
  /// The configuration's phrases, compiled once.
  let configuredHotwords: MoonshineHotwords?
  /// The phrases another engine's ``transcriber`` is asked to favour: the configuration's, or a
  /// stream's own until the reset.
  var transcriberPhrases: [String] = []
  /// How long after an utterance that ended a sentence speech may resume and be heard together
  /// with it, in seconds from the end of its speech (``tuneResumption(window:)``); `nil`: never.
  private var resumptionWindow: TimeInterval?
  /// The last utterance, while speech that resumes may still be heard together with it: it
  /// ended a sentence less than ``resumptionWindow`` ago.
  private var resumable: Resumable?

  /// An utterance that ended a sentence, and the audio since.
  private struct Resumable {
    /// The stream index of `samples[0]`.
    var start: Int
    /// Its audio and what came after it.
    var samples: [Float]
    var speechStart: Int
    var speechEnd: Int
    var speechSamples: Int
    /// Its final transcription and how many samples it heard (none when it is the second
    /// sentence of a resumed utterance, which was transcribed with the first).
    var transcript: MoonshineTranscript?
    var transcribedSamples: Int
  }

  /// The longest utterance kept for speech that resumes: 10 s (the next one's transcriptions
  /// hear it again, and cost in proportion).
  static let longestResumable = RecognitionAudio.sampleRate * 10

  /// An utterance in progress.
  private struct Utterance {
    /// The stream index of `samples[0]`.
    var start: Int
    /// Its audio so far, in [-1, 1].
    var samples: [Float]
    /// Where (in `samples`) its first speech frame starts and its last speech frame ends.
    var speechStart: Int
    var speechEnd: Int
    var speechSamples = 0
    /// Quiet audio since the last speech frame, in samples.
    var quietSamples = 0
    /// How far before the detector's end of speech the sound of it ended (``SoundEnd``), in
    /// samples: the pause counts from the sound's end, the longest pause from the detector's.
    var soundLead = 0
    /// The last transcription of (the beginning of) the utterance, and how many samples it heard.
    var transcript: MoonshineTranscript?
    var transcribedSamples = 0
    /// The words of the last partial result reported.
    var reportedWords: [String] = []
    /// When (on ``MoonshineRecognizer/now``) the last look at the utterance started.
    var lastLook: ContinuousClock.Instant?
    /// Audio its final transcription hears after the last speech, in samples.
    let trailingSamples: Int
    /// With sentence endpointing: the transcription with the early look's part
    /// (``MoonshineRecognizer/earlySamples`` or ``MoonshineRecognizer/earlySamplesAfterSound``) of
    /// the pause after the speech that ended at `speechEnd`, and the judgement of the pause (both
    /// forgotten when speech resumes).
    var early: (speechEnd: Int, transcript: MoonshineTranscript)?
    var verdict: SentenceEnd?
    /// Counts the utterance among the streams speaking while any copy of it lives.
    let speaking: SpeakingStreams.Token
    /// When it resumed an utterance that ended a sentence (``MoonshineRecognizer/resumable``):
    /// where in `samples` that one's speech ended and this one's began, and that one's speech in
    /// samples.
    var resumes: (speechEnd: Int, speechStart: Int, speechSamples: Int)?

    /// The utterance without the one it resumed: its own audio, from ``leadingSamples`` before
    /// its speech (or the end of the other's speech, if later), untranscribed.
    var ownPart: Utterance {
      guard let resumes else { return self }
      var own = self
      let cut = max(resumes.speechEnd, resumes.speechStart - MoonshineRecognizer.leadingSamples)
      own.start += cut
      own.samples.removeFirst(cut)
      own.speechStart = resumes.speechStart - cut
      own.speechEnd -= cut
      own.speechSamples -= resumes.speechSamples
      own.transcript = nil
      own.transcribedSamples = 0
      own.early = nil
      own.verdict = nil
      own.resumes = nil
      return own
    }

    var isConfirmed: Bool { speechSamples >= MoonshineRecognizer.minimumSpeechSamples }

    /// The audio a final transcription hears: up to 0.3 s after the last speech (with sentence
    /// endpointing, up to the shortest pause if that is shorter).
    var finalLength: Int { min(samples.count, speechEnd + trailingSamples) }
    /// The audio the early look at a pause hears: `pause` samples after the last speech.
    func earlyLength(hearing pause: Int) -> Int { min(samples.count, speechEnd + pause) }
  }

  /// Creates a recognizer over the process's shared model for `configuration` (loading it the
  /// first time), with a voice-activity detector of its own.
  ///
  /// - Throws: what ``MoonshineModel/shared(_:)`` throws, and what making the detector throws.
  public convenience init(configuration: MoonshineConfiguration) throws(RecognitionFailure) {
    try self.init(
      configuration: configuration, speakingStreams: .process,
      cores: ProcessInfo.processInfo.activeProcessorCount)
  }

  /// Creates a recognizer that counts its speech among `speakingStreams`, on `cores` cores.
  convenience init(
    configuration: MoonshineConfiguration, speakingStreams: SpeakingStreams, cores: Int
  ) throws(RecognitionFailure) {
    try self.init(
      configuration: configuration, model: MoonshineModel.shared(configuration),
      transcriber: nil, speakingStreams: speakingStreams, cores: cores)
  }

  /// Creates a recognizer whose utterances `transcriber` writes down (another engine's decoder,
  /// such as Whisper's): `configuration` says how the stream is cut into utterances and how they
  /// are reported (its model fields are not used); its ``MoonshineConfiguration/hotwords`` are
  /// passed to the transcriber.
  ///
  /// - Throws: what making the voice-activity detector throws.
  public convenience init(
    configuration: MoonshineConfiguration, transcriber: any UtteranceTranscriber
  ) throws(RecognitionFailure) {
    try self.init(
      configuration: configuration, model: nil, transcriber: transcriber,
      speakingStreams: .process, cores: ProcessInfo.processInfo.activeProcessorCount)
  }

  /// Creates a recognizer that transcribes with `model`, or else with `transcriber`.
  private init(
    configuration: MoonshineConfiguration, model: MoonshineModel?,
    transcriber: (any UtteranceTranscriber)?, speakingStreams: SpeakingStreams, cores: Int
  ) throws(RecognitionFailure) {
    self.speakingStreams = speakingStreams
    self.cores = cores
    self.configuration = configuration
    self.model = model
    self.transcriber = transcriber
    self.detector = try configuration.voiceActivity.makeStream()
    self.endOfUtteranceSilence = configuration.endOfUtteranceSilence
    self.endpointing = configuration.endpointing
    self.maximumSilence = configuration.maximumEndOfUtteranceSilence
    self.frameLength = detector.windowLength
    self.configuredHotwords =
      configuration.hotwords.isEmpty
      ? nil : model?.hotwords(configuration.hotwords, boost: configuration.hotwordBoost)
    self.hotwords = configuredHotwords
    self.transcriberPhrases = configuration.hotwords
  }

  // MARK: SpeechRecognizer

  /// Decodes a chunk of samples.
  ///
  /// - Returns: partial results that changed and the final words of utterances that ended, in
  ///   order; word times count from the last reset.
  /// - Throws: `RecognitionFailure.decoderFailure` when ONNX Runtime fails.
  public func process(
    _ samples: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    var events: [RecognitionEvent] = []
    heardSpeechInChunk = false
    var index = samples.startIndex
    if !pendingFrame.isEmpty {
      let needed = min(frameLength - pendingFrame.count, samples.count)
      pendingFrame += samples[index..<index + needed]
      index += needed
      guard pendingFrame.count == frameLength else { return [] }
      let frame = pendingFrame
      pendingFrame = []
      try frame.withUnsafeBufferPointer { frame throws(RecognitionFailure) in
        try analyze(frame[...], into: &events)
      }
    }
    while index + frameLength <= samples.endIndex {
      try analyze(samples[index..<index + frameLength], into: &events)
      index += frameLength
    }
    pendingFrame += samples[index...]
    if !isCatchingUp { try look(into: &events) }
    return events
  }

  /// Ends the utterance in progress and returns its final words (`nil` when none was in
  /// progress, empty when it had too little speech or the model heard no words).
  ///
  /// An utterance that resumed one that ended a sentence (``tuneResumption(window:)``) gives
  /// its own words, heard alone: a finish reports no revision.
  public func finish() throws(RecognitionFailure) -> [RecognizedWord]? {
    if !pendingFrame.isEmpty, utterance != nil {
      utterance?.samples += pendingFrame.map { Float($0) / 32768 }
    }
    position += pendingFrame.count
    pendingFrame = []
    resumable = nil
    guard let utterance else { return nil }
    self.utterance = nil
    leading = []
    return try finalWords(of: utterance.ownPart)
  }

  /// Sets, until the next reset, the window in which speech that resumes after an utterance
  /// that ended a sentence is heard together with it; `nil`: never (the configuration's
  /// default).
  ///
  /// The resumed utterance is transcribed with the one before it (all its looks, so its
  /// sentence is judged on the whole), and its final words are split where their text ends a
  /// sentence at the pause between the two (``SpokenSentences``): when it ends one there, the
  /// words after it are the new utterance; when the two read as one sentence, all of them are a
  /// ``RecognitionEvent/revision(_:)`` of the last utterance. Only an utterance that ended a
  /// sentence (`. ? !` or `…`), had no more than 10 s of audio and was not cut for its length
  /// can be resumed.
  public func tuneResumption(window: TimeInterval?) {
    resumptionWindow = window.map { max(0, $0) }
    if window == nil { resumable = nil }
  }

  /// Sets, until the next reset, the detector's threshold and the pause that ends an
  /// utterance; `nil` for the configuration's.
  public func tuneVoiceActivity(threshold: Double?, endOfUtteranceSilence: TimeInterval?) {
    tunedSilence = endOfUtteranceSilence.map { max(0.1, $0) }
    self.endOfUtteranceSilence = tunedSilence ?? configuration.endOfUtteranceSilence
    let threshold = threshold ?? configuration.voiceActivity.threshold
    if Float(threshold) != detector.threshold {
      detector = VoiceActivity(
        detector: detector.detector, threshold: threshold,
        releaseThreshold: max(threshold - 0.15, 0.01))
    }
  }

  /// Sets, until the next reset, how utterances end (`true`: sentence endpointing) and the
  /// longest pause an unfinished sentence is held through; `nil` for the configuration's.
  public func tuneEndpointing(judgesSentences: Bool?, maximumSilence: TimeInterval?) {
    endpointing =
      judgesSentences.map { $0 ? .sentence : .fixed } ?? configuration.endpointing
    // A stream that switches how utterances end without naming a pause gets that way's default.
    endOfUtteranceSilence =
      tunedSilence
      ?? endpointing.silence(
        configuredFor: configuration.endpointing,
        configuredSilence: configuration.endOfUtteranceSilence)
    self.maximumSilence =
      maximumSilence.map { max(0.1, $0) } ?? configuration.maximumEndOfUtteranceSilence
  }

  /// Forgets everything: the utterance in progress, the detector's state; word times count from
  /// the next sample.
  public func reset() throws(RecognitionFailure) {
    detector.reset()
    tuneVoiceActivity(threshold: nil, endOfUtteranceSilence: nil)
    tuneEndpointing(judgesSentences: nil, maximumSilence: nil)
    position = 0
    pendingFrame = []
    leading = []
    utterance = nil
    resumable = nil
    resumptionWindow = nil
    isCatchingUp = false
    hotwords = configuredHotwords
    transcriberPhrases = configuration.hotwords
    transcriber?.reset()
  }

  /// Transcribes a piece of a longer input (a file cut at pauses) on its own, in one
  /// transcription of its speech (from 0.3 s before the first speech window to 0.3 s after the
  /// last): nothing when the detector hears less than 80 ms of speech in it (the model would
  /// invent words for noise), else one `.utterance` with word times counted from the start of
  /// the whole input. With sentence endpointing, the piece's text says where its utterances end
  /// (``decodeSentences(_:startingAt:speech:)``: one `.utterance` per sentence that ends at a pause).
  /// A piece longer than ``MoonshineConfiguration/maximumUtteranceDuration`` (and, with another
  /// engine's transcriber, every piece with sentence endpointing) is streamed through
  /// ``process(_:)`` instead, without partial results.
  public func decodeSegment(
    _ samples: [Int16], startingAt offset: TimeInterval
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    try decodeSegment(samples, startingAt: offset, speech: nil)
  }

  /// ``decodeSegment(_:startingAt:)`` with the windows' verdicts taken from `speech` when they
  /// were judged as this recognizer's detector judges (the same detector, windows and
  /// thresholds): a file's reader has already run the detector over the piece.
  public func decodeSegment(
    _ samples: [Int16], startingAt offset: TimeInterval, speech: SpeechWindows?
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    // The pauses tuned for this input and the phrases favoured stay (a request's own);
    // everything else starts afresh.
    let tuned = (endOfUtteranceSilence, endpointing, maximumSilence)
    let favoured = (hotwords, transcriberPhrases)
    lastSegmentEndsSentence = false
    try reset()
    (endOfUtteranceSilence, endpointing, maximumSilence) = tuned
    (hotwords, transcriberPhrases) = favoured
    if endpointing == .sentence {
      // Moonshine hears the whole piece and its text says where the sentences end; another
      // engine's transcriber gives no such judgement, and the piece streams as a live one would.
      guard readsPauseSignals else { return try streamSegment(samples, startingAt: offset) }
      return try decodeSentences(samples, startingAt: offset, speech: speech)
    }
    var firstSpeech: Int?
    var lastSpeech = 0
    var speechSamples = 0
    for (window, isSpeech) in try verdicts(on: samples, given: speech).enumerated() where isSpeech {
      let start = window * frameLength
      if firstSpeech == nil { firstSpeech = start }
      lastSpeech = start + frameLength
      speechSamples += frameLength
    }
    guard let firstSpeech, speechSamples >= Self.minimumSpeechSamples else { return [] }
    let start = max(0, firstSpeech - Self.leadingSamples)
    let end = min(samples.count, lastSpeech + Self.trailingSamples)
    let rate = Double(RecognitionAudio.sampleRate)
    guard Double(end - start) <= configuration.maximumUtteranceDuration * rate else {
      return try streamSegment(samples, startingAt: offset)
    }
    let audio = samples[start..<end].map { Float($0) / 32768 }
    let transcript = try audio.withUnsafeBufferPointer { audio throws(RecognitionFailure) in
      try transcribe(audio, prefix: [], for: .piece)
    }
    let words = transcript.recognizedWords(
      from: offset + Double(firstSpeech) / rate, to: offset + Double(lastSpeech) / rate,
      audioStart: offset + Double(start) / rate)
    return words.isEmpty ? [] : [.utterance(words)]
  }

  /// Decodes a piece with sentence endpointing by looking ahead, as only a file can: each
  /// stretch of speech between pauses of ``maximumSilence`` (where a live stream ends its
  /// utterance whatever was said) is transcribed once, whole, and split into utterances where
  /// its text ends a sentence at a pause of at least ``endOfUtteranceSilence``
  /// (``SpokenSentences``), hearing as much audio before and after its speech as a live
  /// utterance's final words do (the model's wording depends on it: "ten metres" or "10
  /// meters"). The model hears both sides of every shorter pause, so a clause that looks
  /// finished keeps its sentence when the words after the pause go on with it. A stretch
  /// longer than ``MoonshineConfiguration/maximumUtteranceDuration``, or one whose transcription
  /// ends in a loop, streams through ``process(_:)`` instead, as on a live stream.
  private func decodeSentences(
    _ samples: [Int16], startingAt offset: TimeInterval, speech: SpeechWindows?
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    let rate = Double(RecognitionAudio.sampleRate)
    let pauseSamples = max(frameLength, Int(endOfUtteranceSilence * rate))
    let longestPause = max(pauseSamples, Int(max(endOfUtteranceSilence, maximumSilence) * rate))
    // Runs of speech (gaps shorter than the shortest pause that could end an utterance are
    // inside a run), and the stretches they make between the longest pauses.
    var stretches: [[Range<Int>]] = []
    var run: Range<Int>?
    func close() {
      guard let closed = run else { return }
      if let last = stretches.last?.last, closed.lowerBound - last.upperBound < longestPause {
        stretches[stretches.count - 1].append(closed)
      } else {
        stretches.append([closed])
      }
    }
    for (window, isSpeech) in try verdicts(on: samples, given: speech).enumerated() where isSpeech {
      let start = window * frameLength
      if let current = run, start - current.upperBound < pauseSamples {
        run = current.lowerBound..<start + frameLength
      } else {
        close()
        run = start..<start + frameLength
      }
    }
    close()
    var events: [RecognitionEvent] = []
    lastSegmentEndsSentence = false
    for stretch in stretches {
      let speech = stretch.reduce(0) { $0 + $1.count }
      guard speech >= Self.minimumSpeechSamples, let first = stretch.first, let last = stretch.last
      else { continue }
      let start = max(0, first.lowerBound - Self.leadingSamples)
      let end = min(samples.count, last.upperBound + trailingSamples)
      guard Double(end - start) <= configuration.maximumUtteranceDuration * rate else {
        return try streamSegment(samples, startingAt: offset)
      }
      let audio = samples[start..<end].map { Float($0) / 32768 }
      let transcript = try audio.withUnsafeBufferPointer { audio throws(RecognitionFailure) in
        try transcribe(audio, prefix: [], for: .piece)
      }
      guard transcript.ending == .endOfText || stretch.count == 1 else {
        // A loop over a long stretch: the live way's shorter utterances may not loop.
        return try streamSegment(samples, startingAt: offset)
      }
      let words = transcript.recognizedWords(
        from: offset + Double(first.lowerBound) / rate, to: offset + Double(last.upperBound) / rate,
        audioStart: offset + Double(start) / rate)
      lastSegmentEndsSentence = SentenceEnd.isCertain(transcript)
      guard !words.isEmpty else { continue }
      let runs = stretch.map {
        offset + Double($0.lowerBound) / rate..<offset + Double($0.upperBound) / rate
      }
      let parts = SpokenSentences.split(words: words.map(\.text), runs: runs)
      for part in parts {
        var utterance = Array(words[part.words])
        if transcript.wordTimes == nil {
          for (index, time) in part.times.enumerated() {
            utterance[index].timestamp = time.start
            utterance[index].duration = time.duration
          }
        }
        events.append(.utterance(utterance))
      }
      if Self.logsJudgements {
        let texts = parts.map { words[$0.words].map(\.text).joined(separator: " ") }
        FileHandle.standardError.write(
          Data(
            ("transcribe: \(String(format: "%.2f", runs[0].lowerBound)) s, \(runs.count) runs: "
              + texts.map { "\"\($0)\"" }.joined(separator: " | ")
              + " [\(Self.describe(transcript.afterLastWord))"
              + (lastSegmentEndsSentence ? ", certain" : "") + "]\n").utf8))
      }
    }
    return events
  }

  /// The detector's verdict on each whole window of a piece: `speech`'s when they were judged
  /// as this recognizer's detector judges and cover the piece, else its own, heard from the
  /// piece's start (and then the detector is reset).
  private func verdicts(
    on samples: [Int16], given speech: SpeechWindows?
  ) throws(RecognitionFailure) -> [Bool] {
    let count = samples.count / frameLength
    if let speech, speech.match(detector), speech.isSpeech.count == count {
      return speech.isSpeech
    }
    var verdicts: [Bool] = []
    verdicts.reserveCapacity(count)
    for start in stride(from: 0, to: samples.count - frameLength + 1, by: frameLength) {
      verdicts.append(try detector.isSpeech(samples, window: start..<start + frameLength))
    }
    detector.reset()
    return verdicts
  }

  /// Decodes a piece through the streaming path, without partial results.
  private func streamSegment(
    _ samples: [Int16], startingAt offset: TimeInterval
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    lastSegmentEndsSentence = false
    suppressesPartials = true
    // All of the piece is here: no look is taken, so what is transcribed, and the words, depend
    // on the audio alone (a look's timing follows the wall clock).
    isCatchingUp = true
    defer {
      suppressesPartials = false
      isCatchingUp = false
    }
    var events = try samples.withUnsafeBufferPointer { samples throws(RecognitionFailure) in
      try process(samples)
    }
    if let words = try finish(), !words.isEmpty { events.append(.utterance(words)) }
    let tuned = (endOfUtteranceSilence, endpointing, maximumSilence)
    try reset()
    (endOfUtteranceSilence, endpointing, maximumSilence) = tuned
    return events.map { $0.shifted(by: offset) }
  }

  // MARK: Endpointing

  /// Takes one voice-activity window: starts, extends or ends the utterance, and reports what
  /// changed.
  private func analyze(
    _ frame: Slice<UnsafeBufferPointer<Int16>>, into events: inout [RecognitionEvent]
  ) throws(RecognitionFailure) {
    let isSpeech = try detector.isSpeech(UnsafeBufferPointer(rebasing: frame))
    position += frame.count
    let samples = frame.map { Float($0) / 32768 }
    guard var current = utterance else {
      leading += samples
      if leading.count > Self.leadingSamples {
        leading.removeFirst(leading.count - Self.leadingSamples)
      }
      if var ended = resumable {
        ended.samples += samples
        let window = Int((resumptionWindow ?? 0) * Double(RecognitionAudio.sampleRate))
        resumable = ended.samples.count - frame.count - ended.speechEnd < window ? ended : nil
      }
      if isSpeech {
        if let ended = resumable {
          // Speech resumes soon after a sentence ended: heard together with it.
          var resumed = Utterance(
            start: ended.start, samples: ended.samples, speechStart: ended.speechStart,
            speechEnd: ended.samples.count, speechSamples: ended.speechSamples + frame.count,
            trailingSamples: trailingSamples, speaking: speakingStreams.token())
          resumed.transcript = ended.transcript
          resumed.transcribedSamples = ended.transcribedSamples
          resumed.reportedWords = ended.transcript?.words.map(\.text) ?? []
          resumed.resumes = (
            ended.speechEnd, ended.samples.count - frame.count, ended.speechSamples
          )
          utterance = resumed
          resumable = nil
        } else {
          let speechStart = leading.count - frame.count
          utterance = Utterance(
            start: position - leading.count, samples: leading, speechStart: speechStart,
            speechEnd: leading.count, speechSamples: frame.count,
            trailingSamples: trailingSamples, speaking: speakingStreams.token())
        }
        leading = []
      }
      return
    }
    current.samples += samples
    if isSpeech {
      heardSpeechInChunk = true
      current.speechSamples += frame.count
      current.speechEnd = current.samples.count
      current.quietSamples = 0
      current.soundLead = 0
      // Speech resumed: the pause's judgement no longer holds.
      current.verdict = nil
    } else {
      if current.quietSamples == 0, countsPausesFromSound {
        // Silero VAD let go of speech: with sentence endpointing the pause counts from where the
        // sound of it ended, which that detector hears late. (The energy detector's frames end
        // with the sound, a pop's or breath's included, and no later.)
        let soundEnd = SoundEnd.find(
          in: current.samples, speechStart: current.speechStart,
          detectorEnd: current.speechEnd)
        current.soundLead = current.speechEnd - soundEnd
        current.quietSamples = current.soundLead
        current.speechEnd = soundEnd
      }
      current.quietSamples += frame.count
    }
    utterance = current

    let rate = Double(RecognitionAudio.sampleRate)
    let quiet = Double(current.quietSamples) / rate
    let isTooLong =
      Double(current.samples.count) >= configuration.maximumUtteranceDuration * rate
    var pause = endOfUtteranceSilence
    if endpointing == .sentence, current.isConfirmed, !isTooLong, quiet >= endOfUtteranceSilence {
      // The shortest pause: judge the sentence once, from what its final words will be.
      if current.verdict == nil {
        try judge(&current)
        utterance = current
      }
      pause = pauseEnding(current.verdict ?? .undecided)
      if pause > endOfUtteranceSilence {
        // A sentence held open waits for the longest pause after the detector's end of speech,
        // as it did before pauses counted from the sound's end: speech that resumes after a
        // thinking pause that long is heard by the detector a little late too.
        pause += Double(current.soundLead) / rate
      }
    }
    if quiet >= pause || isTooLong {
      utterance = nil
      // After a pause the next utterance may start with the end of it; an utterance cut for its
      // length hands none of its audio on, so no word is heard twice.
      leading = isTooLong ? [] : Array(current.samples.suffix(Self.leadingSamples))
      let (event, final) = try finalEvent(of: current)
      if let event { events.append(event) }
      if !isTooLong, let final { keepResumable(final) }
      return
    }
  }

  /// How long a pause ends an utterance with sentence endpointing, once judged: the shortest
  /// for a finished sentence, the longest for any other (cutting a sentence costs its words;
  /// holding a finished one costs a second).
  private func pauseEnding(_ verdict: SentenceEnd) -> TimeInterval {
    switch verdict {
    case .finished: endOfUtteranceSilence
    case .unfinished, .undecided: max(endOfUtteranceSilence, maximumSilence)
    }
  }

  /// Whether a pause counts from where the sound of speech ends (``SoundEnd``): with sentence
  /// endpointing and Silero VAD, which hears the end late.
  private var countsPausesFromSound: Bool {
    endpointing == .sentence && !configuration.voiceActivity.isEnergy
  }

  /// The pause the early look hears.
  private var earlyLookSamples: Int {
    countsPausesFromSound ? Self.earlySamplesAfterSound : Self.earlySamples
  }

  /// The audio a final transcription hears after the last speech: 0.3 s, or with sentence
  /// endpointing the shortest pause if that is shorter (but no less than the early look's), so the
  /// transcription that judges the sentence is its final words.
  private var trailingSamples: Int {
    guard endpointing == .sentence else { return Self.trailingSamples }
    let shortest = Int(endOfUtteranceSilence * Double(RecognitionAudio.sampleRate))
    return max(earlyLookSamples, min(Self.trailingSamples, shortest))
  }

  /// Judges the sentence at a pause (``SentenceEnd``) from its early look (made now if it was
  /// not) and the transcription its final words hear.
  private func judge(_ utterance: inout Utterance) throws(RecognitionFailure) {
    guard readsPauseSignals else {
      // Another engine's transcriber gives no pause signals to judge by: the sentence is held
      // open as an undecided one, without transcribing it for a judgement it cannot make.
      utterance.verdict = .undecided
      return
    }
    let needsLate =
      utterance.transcript == nil || utterance.transcribedSamples != utterance.finalLength
    if utterance.early?.speechEnd != utterance.speechEnd {
      if needsLate, let model, speakingStreams.count < cores {
        try lookEarlyAndLate(&utterance, with: model)
      } else {
        try lookEarly(&utterance, for: .judgeEarly)
      }
    }
    if utterance.transcript == nil || utterance.transcribedSamples != utterance.finalLength {
      try transcribe(&utterance, samples: utterance.finalLength, for: .judgeLate)
    }
    guard let late = utterance.transcript else { return }
    let verdict = SentenceEnd(early: utterance.early?.transcript, late: late)
    utterance.verdict = verdict
    if Self.logsJudgements {
      let early = utterance.early?.transcript.afterLastWord
      let after = late.afterLastWord
      let start =
        Double(utterance.start + utterance.speechEnd) / Double(RecognitionAudio.sampleRate)
      let judged = Double(position) / Double(RecognitionAudio.sampleRate)
      FileHandle.standardError.write(
        Data(
          ("transcribe: pause at \(String(format: "%.2f", start)) s: \(verdict) \"\(late.text)\" "
            + "judged at \(String(format: "%.3f", judged)) s "
            + "early [\(Self.describe(early))] late [\(Self.describe(after))]\n").utf8))
    }
  }

  /// The signals after a transcription's last word, as the judgement log writes them.
  private static func describe(_ signals: PauseSignals?) -> String {
    signals.map {
      String(format: "term %.3f cont %.3f word %.4f", $0.terminal, $0.continuing, $0.word)
    } ?? "none"
  }

  /// Makes the early look and transcribes what the final words hear at the same time, on two
  /// cores: when the detector's end of speech and the shortest pause fall in one chunk (a
  /// client sending 100 ms at a time, the pause counted from the sound's end), both are due at
  /// once, and one after the other they would delay the judgement by the early look's time.
  /// Each decodes from the last transcription's tokens, as the early look would have alone
  /// (a prefix only speeds decoding: the model keeps what it predicts anyway).
  private func lookEarlyAndLate(
    _ utterance: inout Utterance, with model: MoonshineModel
  ) throws(RecognitionFailure) {
    typealias Decoded = Result<MoonshineTranscript, RecognitionFailure>
    let samples = utterance.samples
    let earlyCount = utterance.earlyLength(hearing: earlyLookSamples)
    let lateCount = utterance.finalLength
    let prefix = utterance.transcript?.reusableTokens ?? []
    let hotwords = self.hotwords
    let log = decodeLog
    let decode: @Sendable (Int, DecodeLog.Look) -> Decoded = { count, look in
      Result { () throws(RecognitionFailure) in
        try DecodeLog.measure(look, samples: count, log: log) { () throws(RecognitionFailure) in
          try samples.withUnsafeBufferPointer { samples throws(RecognitionFailure) in
            try model.transcribe(
              UnsafeBufferPointer(rebasing: samples[..<count]), prefix: prefix, hotwords: hotwords)
          }
        }
      }
    }
    let early = Mutex<Decoded?>(nil)
    let done = DispatchSemaphore(value: 0)
    utterance.lastLook = now()
    let started = ContinuousClock.now
    // A thread of its own, as the recognizer's own runs on: a pool's could all be waiting here.
    let thread = Thread {
      let result = decode(earlyCount, .judgeEarly)
      early.withLock { $0 = result }
      done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    let late = decode(lateCount, .judgeLate)
    done.wait()
    let earlyTranscript = try early.withLock { $0 }!.get()
    lastDecodeSeconds = decodeCost(lateCount, (ContinuousClock.now - started).seconds)
    lastDecodeSamples = lateCount
    utterance.early = (utterance.speechEnd, earlyTranscript)
    utterance.transcript = try late.get()
    utterance.transcribedSamples = lateCount
  }

  /// Transcribes the utterance with the start of its pause (``earlyLookSamples``): the early look
  /// of sentence endpointing.
  private func lookEarly(
    _ utterance: inout Utterance, for look: DecodeLog.Look
  ) throws(RecognitionFailure) {
    try transcribe(&utterance, samples: utterance.earlyLength(hearing: earlyLookSamples), for: look)
    if let transcript = utterance.transcript {
      utterance.early = (utterance.speechEnd, transcript)
    }
  }

  /// Whether each judgement is written to standard error (`TRANSCRIBE_LOG_ENDPOINTS=1`), with
  /// the signals it read: for tuning the rule on one's own speech.
  static let logsJudgements = ProcessInfo.processInfo.environment["TRANSCRIBE_LOG_ENDPOINTS"] == "1"

  /// Looks at the utterance in progress, at most once per chunk: early in a pause, transcribes
  /// what its final result will hear (reported as a partial result meanwhile); during speech,
  /// transcribes it so far for a partial result when the pace allows.
  private func look(into events: inout [RecognitionEvent]) throws(RecognitionFailure) {
    guard var current = utterance, current.isConfirmed else { return }
    let rate = Double(RecognitionAudio.sampleRate)
    let quiet = Double(current.quietSamples) / rate
    if endpointing == .sentence, readsPauseSignals, current.quietSamples >= earlyLookSamples,
      current.early?.speechEnd != current.speechEnd, current.verdict == nil
    {
      // A pause begins: the early look sentence endpointing needs, made while the pause grows
      // (and reported as a partial result meanwhile).
      try lookEarly(&current, for: .early)
      if let event = partial(&current) { events.append(event) }
      utterance = current
    } else if current.quietSamples >= current.trailingSamples,
      current.transcribedSamples < current.finalLength,
      quiet >= endOfUtteranceSilence - 1.2 * expectedDecodeSeconds(current)
    {
      // A pause: transcribe what the final result will hear, so it is ready when the pause is
      // long enough (and report it as a partial result meanwhile).
      try transcribe(&current, samples: current.finalLength, for: .pause)
      if let event = partial(&current) { events.append(event) }
      utterance = current
    } else if heardSpeechInChunk, current.quietSamples < Self.trailingSamples, reportsPartials {
      let newAudio = Double(current.samples.count - current.transcribedSamples) / rate
      let wait = lookInterval(samples: current.samples.count)
      let waited = current.lastLook.map { (now() - $0).seconds } ?? .infinity
      if newAudio >= wait, waited >= wait {
        try transcribe(&current, samples: current.samples.count, for: .partial)
        if let event = partial(&current) { events.append(event) }
        utterance = current
      }
    }
  }

  /// Whether partial results are reported now.
  private var reportsPartials: Bool {
    configuration.reportsPartialResults && configuration.partialResults != .off
      && !suppressesPartials
  }

  /// How long, in seconds of audio and of wall-clock time, the next look at `count` samples
  /// waits after the last: its expected cost times the configuration's and the machine's factors,
  /// and at least ``partialInterval``.
  func lookInterval(samples count: Int) -> TimeInterval {
    guard configuration.partialResults != .off else { return .infinity }
    let factor = Self.paceFactor(speaking: speakingStreams.count, cores: cores)
    return max(
      Self.partialInterval,
      configuration.partialResults.costFactor * factor * expectedDecodeSeconds(count))
  }

  /// How long transcribing the utterance as it is will take, judging by the last transcription.
  private func expectedDecodeSeconds(_ utterance: Utterance) -> TimeInterval {
    guard utterance.transcribedSamples > 0 else {
      // Nothing measured yet for this utterance: assume a real-time factor of 0.15.
      return 0.15 * Double(utterance.samples.count) / Double(RecognitionAudio.sampleRate)
    }
    // The last transcription was this utterance's: the one in progress is the only one.
    return expectedDecodeSeconds(utterance.finalLength)
  }

  /// How long transcribing `count` samples will take, judging by the last transcription of any
  /// utterance, in proportion to its length: a long utterance's final transcription does not
  /// hold back the next utterance's first partial result (a recognizer serves stream after
  /// stream).
  private func expectedDecodeSeconds(_ count: Int) -> TimeInterval {
    guard lastDecodeSamples > 0 else { return 0 }
    return lastDecodeSeconds * Double(count) / Double(lastDecodeSamples)
  }

  /// Transcribes the utterance's first `count` samples for `look`, reusing the last
  /// transcription's tokens.
  private func transcribe(
    _ utterance: inout Utterance, samples count: Int, for look: DecodeLog.Look
  ) throws(RecognitionFailure) {
    let prefix = utterance.transcript?.reusableTokens ?? []
    utterance.lastLook = now()
    let started = ContinuousClock.now
    let transcript = try utterance.samples.withUnsafeBufferPointer {
      samples throws(RecognitionFailure) in
      try transcribe(UnsafeBufferPointer(rebasing: samples[..<count]), prefix: prefix, for: look)
    }
    lastDecodeSeconds = decodeCost(count, (ContinuousClock.now - started).seconds)
    lastDecodeSamples = count
    utterance.transcript = transcript
    utterance.transcribedSamples = count
  }

  /// Whether transcriptions carry what the model expects after the last word
  /// (``MoonshineTranscript/afterLastWord``), which sentence endpointing judges by: Moonshine's
  /// do; another engine's transcriber's do not, and its sentences are held open up to the
  /// longest pause.
  private var readsPauseSignals: Bool { model != nil }

  /// Transcribes audio for `look` with Moonshine's model and the phrases favoured, or with the
  /// ``transcriber``.
  private func transcribe(
    _ audio: UnsafeBufferPointer<Float>, prefix: [Int32], for look: DecodeLog.Look
  ) throws(RecognitionFailure) -> MoonshineTranscript {
    try DecodeLog.measure(look, samples: audio.count, log: decodeLog) {
      () throws(RecognitionFailure) in
      if let model { return try model.transcribe(audio, prefix: prefix, hotwords: hotwords) }
      return try transcriber?.transcribe(audio, prefix: prefix, favouring: transcriberPhrases)
        ?? MoonshineTranscript()
    }
  }

  /// A partial result for the utterance's last transcription, when its words changed and partial
  /// results are wanted.
  private func partial(_ utterance: inout Utterance) -> RecognitionEvent? {
    guard reportsPartials, let transcript = utterance.transcript
    else { return nil }
    let texts = transcript.words.map(\.text)
    guard texts != utterance.reportedWords, !texts.isEmpty else { return nil }
    utterance.reportedWords = texts
    let (start, end) = speechSpan(of: utterance)
    return .partial(
      transcript.recognizedWords(
        from: start, to: end, isPartial: true, audioStart: audioStart(of: utterance)))
  }

  /// The event an utterance that ended gives, and its final transcription (`nil` when it had
  /// too little speech): its final words, or, for one that resumed the utterance before, the
  /// words after a sentence end at the pause between them, or else a revision of the utterance
  /// before.
  private func finalEvent(
    of utterance: Utterance
  ) throws(RecognitionFailure) -> (RecognitionEvent?, Utterance?) {
    guard utterance.isConfirmed else { return (nil, nil) }
    var utterance = utterance
    if utterance.transcript == nil || utterance.transcribedSamples != utterance.finalLength {
      try transcribe(&utterance, samples: utterance.finalLength, for: .final)
    }
    let (start, end) = speechSpan(of: utterance)
    let words =
      utterance.transcript?.recognizedWords(
        from: start, to: end, audioStart: audioStart(of: utterance)) ?? []
    guard !words.isEmpty else { return (nil, utterance) }
    guard let resumes = utterance.resumes else { return (.utterance(words), utterance) }
    let rate = Double(RecognitionAudio.sampleRate)
    let origin = Double(utterance.start)
    let runs = [
      (origin + Double(utterance.speechStart)) / rate..<(origin + Double(resumes.speechEnd)) / rate,
      (origin + Double(resumes.speechStart)) / rate..<(origin + Double(utterance.speechEnd)) / rate,
    ]
    let parts = SpokenSentences.split(words: words.map(\.text), runs: runs)
    if Self.logsJudgements {
      let texts = parts.map { words[$0.words].map(\.text).joined(separator: " ") }
      FileHandle.standardError.write(
        Data(
          ("transcribe: resumed after \(String(format: "%.2f", runs[1].lowerBound - runs[0].upperBound)) s: "
            + texts.map { "\"\($0)\"" }.joined(separator: " | ") + "\n").utf8))
    }
    guard parts.count > 1, let last = parts.last else { return (.revision(words), utterance) }
    var after = Array(words[last.words])
    if utterance.transcript?.wordTimes == nil {
      for (index, time) in last.times.enumerated() {
        after[index].timestamp = time.start
        after[index].duration = time.duration
      }
    }
    // Speech that resumes after it is heard with this sentence only.
    var own = utterance.ownPart
    own.transcript = utterance.transcript
    return (.utterance(after), own)
  }

  /// Keeps an utterance that ended (with its final transcription) for speech that may resume
  /// within ``resumptionWindow``, when it ended a sentence and is short enough.
  private func keepResumable(_ utterance: Utterance) {
    resumable = nil
    guard resumptionWindow != nil, let transcript = utterance.transcript,
      SentenceEnd.endsSentence(transcript.text), utterance.samples.count <= Self.longestResumable
    else { return }
    // A transcription of more than its audio (a resumed utterance's second sentence) is no
    // prefix for its next look.
    let isOwn = utterance.transcribedSamples > 0
    resumable = Resumable(
      start: utterance.start, samples: utterance.samples, speechStart: utterance.speechStart,
      speechEnd: utterance.speechEnd, speechSamples: utterance.speechSamples,
      transcript: isOwn ? transcript : nil,
      transcribedSamples: isOwn ? utterance.transcribedSamples : 0)
  }

  /// The final words of an utterance that ended: its transcription up to 0.3 s after the last
  /// speech (made early in the pause when possible); empty when it had too little speech.
  private func finalWords(of utterance: Utterance) throws(RecognitionFailure) -> [RecognizedWord] {
    guard utterance.isConfirmed else { return [] }
    var utterance = utterance
    if utterance.transcript == nil || utterance.transcribedSamples != utterance.finalLength {
      try transcribe(&utterance, samples: utterance.finalLength, for: .final)
    }
    let (start, end) = speechSpan(of: utterance)
    return utterance.transcript?.recognizedWords(
      from: start, to: end, audioStart: audioStart(of: utterance)) ?? []
  }

  /// When the utterance's first sample is, in seconds from the last reset: where the times a
  /// transcription measures count from.
  private func audioStart(of utterance: Utterance) -> TimeInterval {
    Double(utterance.start) / Double(RecognitionAudio.sampleRate)
  }

  /// When the utterance's speech starts and ends, in seconds from the last reset.
  private func speechSpan(of utterance: Utterance) -> (TimeInterval, TimeInterval) {
    let rate = Double(RecognitionAudio.sampleRate)
    return (
      Double(utterance.start + utterance.speechStart) / rate,
      Double(utterance.start + utterance.speechEnd) / rate
    )
  }
}

/// Counts the streams whose speech is being transcribed: each holds a ``Token`` while its
/// utterance is in progress.
final class SpeakingStreams: Sendable {
  /// The process's count, which every recognizer shares unless a test gives it its own.
  static let process = SpeakingStreams()

  private let speaking = Atomic<Int>(0)

  /// How many tokens are alive.
  var count: Int { speaking.load(ordering: .relaxed) }

  /// A token that counts one stream until it is released.
  func token() -> Token { Token(self) }

  final class Token: Sendable {
    private let streams: SpeakingStreams

    fileprivate init(_ streams: SpeakingStreams) {
      self.streams = streams
      streams.speaking.add(1, ordering: .relaxed)
    }

    deinit { streams.speaking.subtract(1, ordering: .relaxed) }
  }
}
