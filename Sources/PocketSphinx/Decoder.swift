import CPocketSphinx
import Foundation
import Recognition

/// One pocketsphinx decoder, fed 16 kHz mono samples, that splits the audio into utterances.
///
/// Utterances are split by the configuration's voice-activity detector
/// (``DecoderConfiguration/voiceActivity``, e.g. Silero VAD): pocketsphinx hears each utterance
/// from 0.2 s before the detector hears speech until the end-of-utterance silence after it, and
/// nothing between utterances. Without one they are split by pocketsphinx's own detection
/// (`ps_get_in_speech`), the way `pocketsphinx_continuous` does: an utterance starts when a chunk
/// ends in speech and ends when a later chunk ends in silence. While speaking, the partial hypothesis is checked every
/// ``DecoderConfiguration/partialResultInterval`` of audio and reported when it changed.
/// Utterances longer than ``DecoderConfiguration/maximumUtteranceDuration`` are ended early.
///
/// A decoder has no shared state, so several can run at once, each on its own thread. It is not
/// thread-safe itself: one thread feeds it. `deinit` frees the pocketsphinx decoder exactly once.
///
/// ```swift
/// let decoder = try Decoder(configuration: DecoderConfiguration())
/// for event in try samples.withUnsafeBufferPointer({ try decoder.process($0) }) {
///   if case .utterance(let words) = event { print(words.map(\.text)) }
/// }
/// if let words = try decoder.finish() { print(words.map(\.text)) }
/// ```
public final class Decoder: SpeechRecognizer {
  let decoder: OpaquePointer
  /// The search the decoder was loaded with, while a phrase list replaces it.
  var originalSearch: String?
  private let configuration: DecoderConfiguration
  private let framesPerSecond: Double
  private var isInUtterance = false
  private var samplesInUtterance = 0
  private var samplesSincePartialCheck = 0
  private var samplesSincePartialReport = 0
  /// Samples given to pocketsphinx since its voice activity was last looked at (without a
  /// detector of the configuration's; ``speechCheckInterval``).
  private var samplesSinceSpeechCheck = 0
  private var lastPartial: [String] = []
  /// The cepstral mean the model starts every stream with (see ``startNewStream()``).
  private let initialCepstralMean: [Float]
  /// The stream's voice activity, when the configuration has a detector.
  private var voiceActivity: VoiceActivity?
  /// The pause that ends an utterance with the detector: the configuration's, or a stream's own
  /// until the next reset.
  private var endOfUtteranceSilence: TimeInterval
  /// Samples of an incomplete detector window, waiting for the rest.
  private var pendingWindow: [Int16] = []
  /// The last 0.2 s of audio while no utterance is in progress (detector only).
  private var leading: [Int16] = []
  /// Samples without speech since the utterance's last speech window (detector only).
  private var quietSamples = 0
  /// Samples of the stream not given to pocketsphinx (between utterances), which its frame
  /// counts leave out; added back to word times (detector only).
  private var skippedSamples = 0
  /// ``skippedSamples`` when the current utterance started.
  private var utteranceShift = 0
  /// Samples since the detector heard the utterance's speech start (detector only).
  private var samplesSinceSpeechStart = 0

  /// The speech heard before the first partial result (detector only): 0.2 s. pocketsphinx's
  /// hypothesis over less is a guess (`the` for the start of `go forward`); its own detector
  /// starts an utterance only after 0.1 s of speech.
  static let speechBeforeFirstPartial = DecoderConfiguration.sampleRate / 5

  /// Audio fed before the detector's first speech window: 0.2 s (pocketsphinx's own
  /// `-vad_prespeech`).
  static let leadingSamples = DecoderConfiguration.sampleRate / 5

  /// Loads the model.
  ///
  /// - Throws: `RecognitionFailure.modelMissing` when a file is missing,
  ///   `RecognitionFailure.modelCorrupt` when pocketsphinx cannot load it.
  public init(configuration: DecoderConfiguration) throws(RecognitionFailure) {
    try configuration.validate()

    guard let config = Self.parse(configuration.arguments) else {
      throw .decoderFailure("pocketsphinx rejected the options \(configuration.arguments)")
    }
    // ps_init retains the configuration; ours is released either way.
    defer { cmd_ln_free_r(config) }
    var isGrammar = false
    if case .grammar = configuration.search { isGrammar = true }
    let (loaded, errors) = PocketSphinxLog.capturingErrors(
      isVerbose: configuration.isVerbose, silencingStandardOutput: isGrammar
    ) { ps_init(config) }
    if let failure = Self.failure(in: errors, configuration) {
      if let loaded { ps_free(loaded) }
      throw failure
    }
    guard let decoder = loaded else {
      let detail = errors.first.map { ": \($0.message)" } ?? ""
      throw .modelCorrupt(
        "pocketsphinx could not load the model (acoustic model \(configuration.acousticModel.path), "
          + "dictionary \(configuration.dictionary.path), \(configuration.search.description))"
          + detail)
    }
    let sampleRate = cmd_ln_float_r(config, "-samprate")
    guard Int(sampleRate) == DecoderConfiguration.sampleRate else {
      ps_free(decoder)
      throw .modelCorrupt(
        "the acoustic model expects \(Int(sampleRate)) Hz audio; only 16000 Hz models are supported"
      )
    }
    guard ps_start_utt(decoder) >= 0 else {
      ps_free(decoder)
      throw .decoderFailure("pocketsphinx could not start an utterance")
    }
    self.decoder = decoder
    self.configuration = configuration
    self.initialCepstralMean = Self.cepstralMean(of: decoder)
    self.endOfUtteranceSilence = configuration.endOfUtteranceSilence
    self.framesPerSecond = Double(max(1, cmd_ln_int_r(config, "-frate")))
    // pocketsphinx names a key phrase's unknown word only in its log, and not for every length
    // of phrase: look the words up.
    if case let .keyphrase(phrase) = configuration.search,
      let missing = phrase.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        .first(where: { !knows($0) })
    {
      throw .wordNotInDictionary(word: missing, dictionary: configuration.dictionary.path)
    }
    if case let .phrases(phrases) = configuration.search {
      try restrict(toPhrases: phrases)
    }
    voiceActivity = try configuration.voiceActivity?.makeStream()
  }

  deinit {
    ps_end_utt(decoder)
    ps_free(decoder)
  }

  /// Decodes a chunk of samples.
  ///
  /// Without a detector of its own configuration, pocketsphinx's voice activity decides where
  /// utterances end. It is looked at every ``speechCheckInterval`` samples of the stream, at the
  /// same places however the audio is cut into chunks, so the same audio always decodes to the
  /// same utterances and words. What a chunk leaves of an interval is looked at with the next
  /// chunk (so an utterance's end can wait up to 0.1 s for more audio), or by ``finish()``.
  ///
  /// - Returns: a partial hypothesis that changed, and the final words of an utterance that
  ///   ended, in order.
  public func process(
    _ samples: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure)
    -> [RecognitionEvent]
  {
    guard let base = samples.baseAddress, !samples.isEmpty else { return [] }
    if voiceActivity != nil { return try processDetectingSpeech(samples) }
    var events: [RecognitionEvent] = []
    var offset = 0
    while offset < samples.count {
      let length = min(samples.count - offset, Self.speechCheckInterval - samplesSinceSpeechCheck)
      guard ps_process_raw(decoder, base + offset, length, 0, 0) >= 0 else {
        throw .decoderFailure("pocketsphinx failed to process audio")
      }
      offset += length
      samplesSinceSpeechCheck += length
      guard samplesSinceSpeechCheck == Self.speechCheckInterval else { continue }
      samplesSinceSpeechCheck = 0
      events += try checkSpeech(samples: Self.speechCheckInterval)
    }
    return events
  }

  /// How often pocketsphinx's voice activity is looked at, in samples: 0.1 s.
  public static let speechCheckInterval = DecoderConfiguration.sampleRate / 10

  /// Looks at pocketsphinx's voice activity after `count` more samples: starts an utterance
  /// when speech began, ends it when speech is over or it is too long, and otherwise reports
  /// the partial hypothesis when it is time to.
  private func checkSpeech(samples count: Int) throws(RecognitionFailure) -> [RecognitionEvent] {
    let isInSpeech = ps_get_in_speech(decoder) != 0
    if isInSpeech, !isInUtterance {
      isInUtterance = true
      samplesInUtterance = 0
      samplesSincePartialCheck = 0
      samplesSincePartialReport = 0
    }
    if isInUtterance {
      samplesInUtterance += count
      samplesSincePartialCheck += count
      samplesSincePartialReport += count
    }
    let tooLong =
      Double(samplesInUtterance)
      >= configuration.maximumUtteranceDuration * Double(DecoderConfiguration.sampleRate)
    if isInUtterance, !isInSpeech || tooLong {
      let words = try endUtterance()
      guard ps_start_utt(decoder) >= 0 else {
        throw .decoderFailure("pocketsphinx could not start an utterance")
      }
      return [.utterance(words)]
    }
    if isInUtterance, let partial = partialResult(nextChunk: count) {
      return [partial]
    }
    return []
  }

  /// The partial hypothesis, when it is time to check it and it changed (or too long passed
  /// without one); `nextChunk` is the length of the chunks audio comes in.
  private func partialResult(nextChunk: Int) -> RecognitionEvent? {
    let rate = Double(DecoderConfiguration.sampleRate)
    guard configuration.reportsPartialResults,
      Double(samplesSincePartialCheck) >= configuration.partialResultInterval * rate
    else { return nil }
    samplesSincePartialCheck = 0
    let words = currentWords(isFinal: false)
    let texts = words.map(\.text)
    // Reported when it changed, and anyway when waiting for the next chunk could leave more
    // than maximumPartialResultGap of speech without one, so a listener knows speech goes on.
    guard
      texts != lastPartial
        || Double(samplesSincePartialReport + nextChunk)
          > configuration.maximumPartialResultGap * rate
    else { return nil }
    lastPartial = texts
    samplesSincePartialReport = 0
    return .partial(words)
  }

  /// ``process(_:)`` with the configuration's voice-activity detector: judges the audio window by
  /// window, feeds pocketsphinx only utterances (with 0.2 s before the first speech), and ends an
  /// utterance after ``DecoderConfiguration/endOfUtteranceSilence`` without speech.
  private func processDetectingSpeech(
    _ samples: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure) -> [RecognitionEvent] {
    guard var activity = voiceActivity else { return [] }
    defer { voiceActivity = activity }
    let length = activity.windowLength
    let rate = Double(DecoderConfiguration.sampleRate)
    var audio = pendingWindow
    audio += samples
    var events: [RecognitionEvent] = []
    var start = 0
    while start + length <= audio.count {
      let window = Array(audio[start..<start + length])
      start += length
      let isSpeech = try activity.isSpeech(window, window: 0..<length)
      guard isInUtterance else {
        leading += window
        guard isSpeech else {
          let excess = leading.count - Self.leadingSamples
          if excess > 0 {
            leading.removeFirst(excess)
            skippedSamples += excess
          }
          continue
        }
        isInUtterance = true
        samplesInUtterance = 0
        samplesSincePartialCheck = 0
        samplesSincePartialReport = 0
        quietSamples = 0
        utteranceShift = skippedSamples
        samplesSinceSpeechStart = length
        try feed(leading)
        samplesInUtterance = leading.count
        leading = []
        continue
      }
      try feed(window)
      samplesSinceSpeechStart += length
      samplesInUtterance += length
      samplesSincePartialCheck += length
      samplesSincePartialReport += length
      quietSamples = isSpeech ? 0 : quietSamples + length
      let isTooLong = Double(samplesInUtterance) >= configuration.maximumUtteranceDuration * rate
      if Double(quietSamples) >= endOfUtteranceSilence * rate || isTooLong {
        events.append(.utterance(try endUtterance()))
        guard ps_start_utt(decoder) >= 0 else {
          throw .decoderFailure("pocketsphinx could not start an utterance")
        }
      } else if samplesSinceSpeechStart >= Self.speechBeforeFirstPartial,
        let partial = partialResult(nextChunk: length)
      {
        events.append(partial)
      }
    }
    pendingWindow = Array(audio[start...])
    return events
  }

  /// Gives samples to pocketsphinx.
  private func feed(_ samples: [Int16]) throws(RecognitionFailure) {
    guard !samples.isEmpty else { return }
    let status = samples.withUnsafeBufferPointer {
      ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 0)
    }
    guard status >= 0 else { throw .decoderFailure("pocketsphinx failed to process audio") }
  }

  /// Ends the utterance in progress, if any, and returns its final words.
  ///
  /// The decoder can go on decoding afterwards.
  public func finish() throws(RecognitionFailure) -> [RecognizedWord]? {
    if voiceActivity != nil, isInUtterance {
      try feed(pendingWindow)
    }
    skippedSamples += isInUtterance ? 0 : leading.count + pendingWindow.count
    pendingWindow = []
    leading = []
    // Speech that began after pocketsphinx's voice activity was last looked at.
    if voiceActivity == nil, !isInUtterance, samplesSinceSpeechCheck > 0,
      ps_get_in_speech(decoder) != 0
    {
      isInUtterance = true
    }
    guard isInUtterance else { return nil }
    let words = try endUtterance()
    guard ps_start_utt(decoder) >= 0 else {
      throw .decoderFailure("pocketsphinx could not start an utterance")
    }
    return words
  }

  /// Forgets everything learned from earlier audio, so what follows decodes as if this decoder
  /// had just been loaded: ends the utterance in progress (discarding it), restarts the stream
  /// (word times count from the next sample again, noise estimates start over) and resets the
  /// cepstral mean to the model's initial value.
  ///
  /// A pooled decoder calls this before each piece of audio, so a piece decodes to the same
  /// words whichever decoder, and whatever it decoded before, gets it.
  public func startNewStream() throws(RecognitionFailure) {
    isInUtterance = false
    lastPartial = []
    samplesInUtterance = 0
    samplesSincePartialCheck = 0
    samplesSinceSpeechCheck = 0
    pendingWindow = []
    leading = []
    quietSamples = 0
    skippedSamples = 0
    utteranceShift = 0
    voiceActivity?.reset()
    ps_end_utt(decoder)
    if let feature = ps_get_feat(decoder), let cmn = feature.pointee.cmn_struct,
      cmn.pointee.veclen == initialCepstralMean.count
    {
      initialCepstralMean.withUnsafeBufferPointer { cmn_live_set(cmn, $0.baseAddress) }
    }
    guard ps_start_stream(decoder) >= 0, ps_start_utt(decoder) >= 0 else {
      throw .decoderFailure("pocketsphinx could not start a new stream")
    }
  }

  /// The recognizer protocol's reset: ``startNewStream()``, with the configuration's detector
  /// settings again.
  public func reset() throws(RecognitionFailure) {
    tuneVoiceActivity(threshold: nil, endOfUtteranceSilence: nil)
    try startNewStream()
  }

  /// Sets, until the next reset, the detector's threshold and the pause that ends an utterance
  /// (`nil` for the configuration's). Without a detector (pocketsphinx's own), nothing changes:
  /// its pause is fixed when the decoder is made.
  public func tuneVoiceActivity(threshold: Double?, endOfUtteranceSilence: TimeInterval?) {
    guard let activity = voiceActivity, let detection = configuration.voiceActivity else { return }
    self.endOfUtteranceSilence =
      endOfUtteranceSilence.map { max(0.1, $0) }
      ?? configuration.endOfUtteranceSilence
    let threshold = threshold ?? detection.threshold
    if Float(threshold) != activity.threshold {
      voiceActivity = VoiceActivity(
        detector: activity.detector, threshold: threshold,
        releaseThreshold: max(threshold - 0.15, 0.01))
    }
  }

  private static func cepstralMean(of decoder: OpaquePointer) -> [Float] {
    guard let feature = ps_get_feat(decoder), let cmn = feature.pointee.cmn_struct else {
      return []
    }
    var mean = [Float](repeating: 0, count: Int(cmn.pointee.veclen))
    mean.withUnsafeMutableBufferPointer { cmn_live_get(cmn, $0.baseAddress) }
    return mean
  }

  private func endUtterance() throws(RecognitionFailure) -> [RecognizedWord] {
    isInUtterance = false
    lastPartial = []
    guard ps_end_utt(decoder) >= 0 else {
      throw .decoderFailure("pocketsphinx could not end an utterance")
    }
    var words = currentWords(isFinal: true)
    if configuration.alternativeCount > 0, !words.isEmpty {
      addAlternatives(to: &words)
    }
    return words
  }

  /// The best hypothesis's words, fillers (`<s>`, `<sil>`, `[NOISE]`, …) left out.
  private func currentWords(isFinal: Bool) -> [RecognizedWord] {
    let logmath = ps_get_logmath(decoder)
    var words: [RecognizedWord] = []
    var segment = ps_seg_iter(decoder)
    while let current = segment {
      if let word = word(at: current, logmath: isFinal ? logmath : nil) {
        words.append(word)
      }
      segment = ps_seg_next(current)
    }
    return words
  }

  private func word(at segment: OpaquePointer, logmath: OpaquePointer?) -> RecognizedWord? {
    guard let cString = ps_seg_word(segment) else { return nil }
    let text = Self.baseWord(String(cString: cString))
    guard !Self.isFiller(text) else { return nil }
    var startFrame: Int32 = 0
    var endFrame: Int32 = 0
    ps_seg_frames(segment, &startFrame, &endFrame)
    var confidence: Float = 0
    if let logmath {
      var acoustic: Int32 = 0
      var language: Int32 = 0
      var backoff: Int32 = 0
      let posterior = ps_seg_prob(segment, &acoustic, &language, &backoff)
      confidence = Float(min(1, max(0, logmath_exp(logmath, posterior))))
    }
    return RecognizedWord(
      text: text,
      timestamp: Double(startFrame) / framesPerSecond
        + Double(utteranceShift) / Double(DecoderConfiguration.sampleRate),
      duration: Double(max(0, endFrame - startFrame + 1)) / framesPerSecond,
      confidence: confidence
    )
  }

  /// Fills in each word's alternatives: the words other n-best hypotheses put mostly in the same
  /// time span.
  private func addAlternatives(to words: inout [RecognizedWord]) {
    var hypotheses: [[RecognizedWord]] = []
    var nbest = ps_nbest(decoder)
    while let current = nbest, hypotheses.count < configuration.alternativeCount {
      var hypothesis: [RecognizedWord] = []
      var segment = ps_nbest_seg(current)
      while let seg = segment {
        if let word = word(at: seg, logmath: nil) { hypothesis.append(word) }
        segment = ps_seg_next(seg)
      }
      hypotheses.append(hypothesis)
      nbest = ps_nbest_next(current)
    }
    if let nbest { ps_nbest_free(nbest) }

    for index in words.indices {
      let word = words[index]
      var alternatives: [String] = []
      for candidate in hypotheses.joined() where candidate.text != word.text {
        let overlap =
          min(word.timestamp + word.duration, candidate.timestamp + candidate.duration)
          - max(word.timestamp, candidate.timestamp)
        if overlap > 0.5 * min(word.duration, candidate.duration),
          !alternatives.contains(candidate.text)
        {
          alternatives.append(candidate.text)
        }
      }
      words[index].alternatives = alternatives
    }
  }

  /// The failure that the errors pocketsphinx logged while loading point to: a word missing
  /// from the dictionary, a grammar that does not parse, or dictionary entries it could not use.
  static func failure(
    in errors: [LoggedError], _ configuration: DecoderConfiguration
  ) -> RecognitionFailure? {
    for error in errors {
      if error.message.contains("is missing in the dictionary"), let word = error.firstQuoted {
        return .wordNotInDictionary(word: word, dictionary: configuration.dictionary.path)
      }
      if error.source.hasPrefix("jsgf"), case let .grammar(url) = configuration.search {
        return .grammarInvalid(path: url.path, reason: error.message)
      }
      if error.source.hasPrefix("dict") {
        return .dictionaryInvalid(path: configuration.dictionary.path, reason: error.message)
      }
    }
    return nil
  }

  private static func parse(_ arguments: [String]) -> OpaquePointer? {
    var argv = arguments.map { strdup($0) }
    defer { argv.forEach { free($0) } }
    return argv.withUnsafeMutableBufferPointer { buffer in
      cmd_ln_parse_r(nil, ps_args(), Int32(buffer.count), buffer.baseAddress, 1)
    }
  }

  /// `forward(2)` → `forward`.
  static func baseWord(_ word: String) -> String {
    guard word.hasSuffix(")"), let open = word.lastIndex(of: "("), open != word.startIndex,
      word[word.index(after: open)..<word.index(before: word.endIndex)].allSatisfy(\.isNumber)
    else { return word }
    return String(word[..<open])
  }

  /// Silence, sentence marks and noise words: `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++UM++`, and
  /// the empty steps of a grammar, `(NULL)`.
  static func isFiller(_ word: String) -> Bool {
    word.isEmpty || word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("++")
      || word == "(NULL)"
  }
}
