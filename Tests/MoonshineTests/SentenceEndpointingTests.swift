import Foundation
import LiveTestSupport
import Recognition
import Synchronization
import Testing

@testable import Moonshine

/// The rule alone, on the signals a transcription carries: no model needed.
struct SentenceEndRuleTests {
  func transcript(
    _ text: String, terminal: Float, continuing: Float, word: Float
  ) -> MoonshineTranscript {
    MoonshineTranscript(
      text: text,
      afterLastWord: PauseSignals(terminal: terminal, continuing: continuing, word: word))
  }

  @Test func aSentenceTheModelClosesWithConfidenceIsFinished() {
    let early = transcript("Go forward ten meters.", terminal: 0.73, continuing: 0.26, word: 0.0005)
    let late = transcript("Go forward ten meters.", terminal: 0.86, continuing: 0.14, word: 0.0003)
    #expect(SentenceEnd(early: early, late: late) == .finished)
    // A closing quote after the period still ends the sentence.
    let quoted = transcript(#"He said "go.""#, terminal: 0.9, continuing: 0.05, word: 0.001)
    #expect(SentenceEnd(early: quoted, late: quoted) == .finished)
  }

  @Test func whatCannotEndASentenceHoldsIt() {
    let signals = (terminal: Float(0.95), continuing: Float(0.03), word: Float(0.0001))
    for text in [
      "Eight of spades, four of.", "Turn on the.", "He might.", "Unless to be rather cold,",
      "Go forward ten meters", "",
    ] {
      let late = transcript(
        text, terminal: signals.terminal, continuing: signals.continuing, word: signals.word)
      #expect(SentenceEnd(early: late, late: late) == .unfinished, "\(text)")
    }
  }

  @Test func theModelExpectingMoreWordsOrAGrowingCommaHoldsIt() {
    let late = transcript("Seven of clubs.", terminal: 0.9, continuing: 0.08, word: 0.002)
    // Another word likely in either look.
    let wordy = transcript("Seven of clubs.", terminal: 0.7, continuing: 0.2, word: 0.04)
    #expect(SentenceEnd(early: wordy, late: late) == .unfinished)
    // The comma grows from the early look to the late one.
    let lateComma = transcript("Seven of clubs.", terminal: 0.8, continuing: 0.19, word: 0.001)
    let earlyComma = transcript("Seven of clubs.", terminal: 0.9, continuing: 0.1, word: 0.001)
    #expect(SentenceEnd(early: earlyComma, late: lateComma) == .unfinished)
  }

  @Test func anUnsureSentenceOrOneWithoutAnEarlyLookIsUndecided() {
    // "He might even have been made." at a thinking pause: a period, but not a sure one.
    let early = transcript(
      "He might even have been made.", terminal: 0.18, continuing: 0.82, word: 0.0013)
    let late = transcript(
      "He might even have been made.", terminal: 0.71, continuing: 0.29, word: 0.0001)
    #expect(SentenceEnd(early: early, late: late) == .undecided)
    let sure = transcript("Ten meters.", terminal: 0.9, continuing: 0.05, word: 0.0001)
    #expect(SentenceEnd(early: nil, late: sure) == .undecided)
  }

  @Test func lastWordsAreReadWithoutPunctuationOrCase() {
    #expect(SentenceEnd.lastWord(of: "Turn on THE.") == "the")
    #expect(SentenceEnd.lastWord(of: "ill-disposed,") == "disposed")
    #expect(SentenceEnd.lastWord(of: "...") == nil)
    #expect(SentenceEnd.endsSentence("Really?\u{201D}"))
    #expect(!SentenceEnd.endsSentence("Really,"))
  }
}

/// The rule in the recognizer, on real speech, in audio time (the recognizer counts samples, so
/// a file decoded faster than it was spoken ends its utterances where a live stream would).
@Suite(.enabled(if: isModelInstalled, modelRequirement))
struct SentenceEndpointingTests {
  func configuration(_ endpointing: Endpointing) -> MoonshineConfiguration {
    var configuration = installedConfiguration
    configuration.endpointing = endpointing
    configuration.endOfUtteranceSilence = endpointing.defaultSilence
    return configuration
  }

  /// "He might even have been made | amiable himself." with a pause of `pause` seconds of
  /// digital silence where the reader had none (after "made", 1.68 s into the clip), and a
  /// second of silence after it.
  func madeAmiable(pause: Double) throws -> [Int16] {
    let clip = try #require(
      libriVoxClips().first { $0.reference.hasPrefix("he might even have been made") })
    let cut = 26_880
    return Array(clip.samples[..<cut]) + [Int16](repeating: 0, count: Int(pause * 16_000))
      + Array(clip.samples[cut...]) + [Int16](repeating: 0, count: 16_000)
  }

  /// Feeds `samples` in 800-sample chunks and returns each final utterance with how many
  /// samples had been fed when it came, then the words `finish()` gives.
  func finals(
    _ samples: [Int16], _ recognizer: MoonshineRecognizer
  ) throws -> [(words: [RecognizedWord], fed: Int)] {
    var finals: [(words: [RecognizedWord], fed: Int)] = []
    for start in stride(from: 0, to: samples.count, by: 800) {
      let chunk = Array(samples[start..<min(start + 800, samples.count)])
      for event in try chunk.withUnsafeBufferPointer({ try recognizer.process($0) }) {
        if case .utterance(let words) = event { finals.append((words, start + chunk.count)) }
      }
    }
    if let words = try recognizer.finish(), !words.isEmpty {
      finals.append((words, samples.count))
    }
    return finals
  }

  /// Seconds from the end of the utterance's speech to when its final words came.
  func delay(_ final: (words: [RecognizedWord], fed: Int)) -> Double {
    let last = final.words.last!
    return Double(final.fed) / 16_000 - (last.timestamp + last.duration)
  }

  @Test func aFinishedSentenceEndsAfterTheShortestPause() throws {
    let samples = try goForwardSamples() + [Int16](repeating: 0, count: 16_000)
    let sentence = try finals(samples, MoonshineRecognizer(configuration: configuration(.sentence)))
    let fixed = try finals(samples, MoonshineRecognizer(configuration: configuration(.fixed)))
    #expect(sentence.count == 1 && fixed.count == 1)
    guard let early = sentence.first, let late = fixed.first else { return }
    #expect(
      normalizedWords(early.words.map(\.text).joined(separator: " "))
        == ["go", "forward", "ten", "meters"])
    #expect(
      normalizedWords(late.words.map(\.text).joined(separator: " "))
        == ["go", "forward", "ten", "meters"])
    // 0.2 s of pause (in whole 32 ms windows) and a chunk (0.05 s), against the fixed 0.5 s.
    #expect(delay(early) < 0.28, "\(delay(early))")
    #expect(delay(late) >= 0.5, "\(delay(late))")
  }

  @Test(.enabled(if: isSileroInstalled, sileroRequirement))
  func withSileroThePauseCountsFromWhereTheSoundOfSpeechEnds() throws {
    var configuration = configuration(.sentence)
    configuration.voiceActivity = try installedSilero()
    let samples = try goForwardSamples() + [Int16](repeating: 0, count: 16_000)
    let finals = try finals(samples, MoonshineRecognizer(configuration: configuration))
    #expect(finals.count == 1)
    guard let final = finals.first else { return }
    #expect(
      normalizedWords(final.words.map(\.text).joined(separator: " "))
        == ["go", "forward", "ten", "meters"])
    // "meters" ends at 2.11 s and a pop follows it; Silero VAD lets go of speech at 2.27 s.
    // Counted from where the sound ends (2.16 s), 0.2 s of pause ends the sentence within the
    // 800-sample chunk that ends at 2.40 s; counted from the detector's end it came at 2.55 s.
    #expect(Double(final.fed) / 16_000 <= 2.4, "\(Double(final.fed) / 16_000) s")
    let end = final.words.last.map { $0.timestamp + $0.duration } ?? 0
    #expect(end < 2.2, "speech ends at \(end) s")
  }

  @Test(.enabled(if: isSileroInstalled, sileroRequirement))
  func theDecodeLogNamesEachTranscriptionForWhatItIsFor() throws {
    var configuration = configuration(.sentence)
    configuration.voiceActivity = try installedSilero()
    let samples = try goForwardSamples() + [Int16](repeating: 0, count: 16_000)
    /// Each logged transcription's look and seconds of audio, streaming `chunk` samples at a time.
    func looks(chunk: Int, cores: Int) throws -> [(look: String, seconds: Double)] {
      let recognizer = try MoonshineRecognizer(
        configuration: configuration, speakingStreams: SpeakingStreams(), cores: cores)
      let lines = Mutex<[String]>([])
      recognizer.decodeLog = { line in lines.withLock { $0.append(line) } }
      for start in stride(from: 0, to: samples.count, by: chunk) {
        let part = Array(samples[start..<min(start + chunk, samples.count)])
        _ = try part.withUnsafeBufferPointer { try recognizer.process($0) }
      }
      return try lines.withLock { $0 }.map { line in
        let fields = line.split(separator: " ")
        return (String(fields[2]), try #require(Double(fields[3])))
      }
    }
    /// The looks from the pause on: before it, only partial results.
    func atThePause(_ looks: [(look: String, seconds: Double)]) -> [(look: String, seconds: Double)]
    {
      let pause = Array(looks.drop { $0.look == "partial" })
      #expect(pause.count < looks.count, "no partial result before the pause")
      return pause
    }
    // 100 ms chunks: the chunk that brings the detector's release also brings the shortest
    // pause, so both looks are made when the judgement is due: at once on two cores, one after
    // the other on one. The early look hears less than the final words do.
    let together = atThePause(try looks(chunk: 1_600, cores: 2)).sorted { $0.look < $1.look }
    let inTurn = atThePause(try looks(chunk: 1_600, cores: 1))
    #expect(together.map(\.look) == ["judge-early", "judge-late"])
    #expect(inTurn.map(\.look) == ["judge-early", "judge-late"])
    #expect(together.map(\.seconds) == inTurn.map(\.seconds))
    #expect(inTurn[0].seconds < inTurn[1].seconds)
    // 50 ms chunks: the early look comes a chunk before the judgement, made ahead.
    let ahead = atThePause(try looks(chunk: 800, cores: 1))
    #expect(ahead.map(\.look) == ["early", "judge-late"])
    #expect(ahead.map(\.seconds) == inTurn.map(\.seconds))
    // A file's piece is one transcription of its own.
    let recognizer = try MoonshineRecognizer(
      configuration: configuration, speakingStreams: SpeakingStreams(), cores: 1)
    let lines = Mutex<[String]>([])
    recognizer.decodeLog = { line in lines.withLock { $0.append(line) } }
    _ = try recognizer.decodeSegment(samples, startingAt: 0)
    #expect(lines.withLock { $0 }.map { $0.split(separator: " ")[2] } == ["piece"])
  }

  @Test(.enabled(if: isSileroInstalled, sileroRequirement))
  func bothLooksDueInOneChunkJudgeAsOneAfterTheOtherDo() throws {
    // 100 ms chunks, as a Wyoming satellite sends: the chunk that ends at 2.40 s brings both the
    // detector's release and the shortest pause. On two cores the early look and the final
    // words are transcribed at once; on one, one after the other. Same judgement, same words.
    var configuration = configuration(.sentence)
    configuration.voiceActivity = try installedSilero()
    let samples = try goForwardSamples() + [Int16](repeating: 0, count: 16_000)
    func run(cores: Int) throws -> [(text: String, fed: Int)] {
      let recognizer = try MoonshineRecognizer(
        configuration: configuration, speakingStreams: SpeakingStreams(), cores: cores)
      var finals: [(text: String, fed: Int)] = []
      for start in stride(from: 0, to: samples.count, by: 1_600) {
        let chunk = Array(samples[start..<min(start + 1_600, samples.count)])
        for event in try chunk.withUnsafeBufferPointer({ try recognizer.process($0) }) {
          if case .utterance(let words) = event {
            finals.append((words.map(\.text).joined(separator: " "), start + chunk.count))
          }
        }
      }
      return finals
    }
    let together = try run(cores: 2)
    let inTurn = try run(cores: 1)
    #expect(together.map(\.text) == inTurn.map(\.text))
    #expect(together.map(\.fed) == [38_400] && inTurn.map(\.fed) == [38_400])
  }

  @Test func aStreamAskingForAFixedPauseWithoutOneGetsTheFixedDefault() throws {
    // An OpenAI upload's `server_vad` without `silence_duration_ms`, on a sentence server: the
    // 0.5 s fixed pause, not the sentence configuration's 0.2 s shortest one.
    let samples = try goForwardSamples() + [Int16](repeating: 0, count: 16_000)
    let recognizer = try MoonshineRecognizer(configuration: configuration(.sentence))
    recognizer.tuneVoiceActivity(threshold: nil, endOfUtteranceSilence: nil)
    recognizer.tuneEndpointing(judgesSentences: false, maximumSilence: nil)
    let tuned = try finals(samples, recognizer)
    #expect(tuned.count == 1)
    if let final = tuned.first { #expect(delay(final) >= 0.5, "\(delay(final))") }
    // A pause the stream names is kept; the reset gives back the configuration's.
    try recognizer.reset()
    recognizer.tuneVoiceActivity(threshold: nil, endOfUtteranceSilence: 0.3)
    recognizer.tuneEndpointing(judgesSentences: false, maximumSilence: nil)
    if let final = try finals(samples, recognizer).first {
      #expect(delay(final) >= 0.3 && delay(final) < 0.45, "\(delay(final))")
    }
    try recognizer.reset()
    if let final = try finals(samples, recognizer).first {
      #expect(delay(final) < 0.28, "\(delay(final))")
    }
  }

  @Test func anUnfinishedSentenceSurvivesAThinkingPause() throws {
    let samples = try madeAmiable(pause: 0.8)
    let sentence = try finals(samples, MoonshineRecognizer(configuration: configuration(.sentence)))
    #expect(sentence.count == 1, "\(sentence.map { $0.words.map(\.text) })")
    #expect(
      normalizedWords(
        sentence.map { $0.words.map(\.text).joined(separator: " ") }.joined(separator: " "))
        == ["he", "might", "even", "have", "been", "made", "amiable", "himself"])
    // The fixed pause cuts it, as it did before.
    let fixed = try finals(samples, MoonshineRecognizer(configuration: configuration(.fixed)))
    #expect(fixed.count == 2)
  }

  @Test func theLongestPauseStillEndsAnUnfinishedSentence() throws {
    var configuration = configuration(.sentence)
    configuration.maximumEndOfUtteranceSilence = 1.2
    let samples = try madeAmiable(pause: 1.6)
    let sentence = try finals(samples, MoonshineRecognizer(configuration: configuration))
    #expect(sentence.count == 2, "\(sentence.map { $0.words.map(\.text) })")
    guard let first = sentence.first else { return }
    #expect(normalizedWords(first.words.map(\.text).joined(separator: " ")).last == "made")
    // Held to the bound: 1.2 s of pause (and a chunk), not the shortest pause.
    #expect(delay(first) >= 1.2 && delay(first) < 1.28, "\(delay(first))")
  }

  /// The final events (utterances and revisions) among `events`, as texts marked `+` for a
  /// revision.
  func finalTexts(_ events: [RecognitionEvent]) -> [String] {
    events.compactMap { event -> String? in
      switch event {
      case .partial: nil
      case .utterance(let words): words.map(\.text).joined(separator: " ")
      case .revision(let words): "+" + words.map(\.text).joined(separator: " ")
      }
    }
  }

  @Test func aSentenceThatResumesWithinTheWindowRevisesTheUtteranceItEnded() throws {
    // Held for at most 0.5 s, the sentence ends at "made." in its 0.8 s pause, as it does when
    // the rule takes "made." for a finished sentence.
    var configuration = configuration(.sentence)
    configuration.maximumEndOfUtteranceSilence = 0.5
    let samples = try madeAmiable(pause: 0.8)
    let recognizer = try MoonshineRecognizer(configuration: configuration)
    let cut = finalTexts(try stream(samples, to: recognizer))
    #expect(cut.count == 2 && cut.first?.hasSuffix("made.") == true, "\(cut)")
    try recognizer.reset()
    recognizer.tuneResumption(window: 2)
    let events = try stream(samples, to: recognizer)
    let texts = finalTexts(events)
    #expect(texts.count == 2, "\(texts)")
    #expect(texts.first?.hasSuffix("made.") == true, "\(texts)")
    guard case .revision(let words) = events.last(where: { $0.isFinal }) else {
      Issue.record("no revision: \(texts)")
      return
    }
    #expect(
      normalizedWords(words.map(\.text).joined(separator: " "))
        == ["he", "might", "even", "have", "been", "made", "amiable", "himself"])
    // In order, within the audio.
    #expect(zip(words, words.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    // The window is the recognizer's until its reset.
    try recognizer.reset()
    #expect(finalTexts(try stream(samples, to: recognizer)) == cut)
  }

  @Test func aNewSentenceWithinTheWindowIsANewUtteranceOfItsOwnWords() throws {
    let goForward = try goForwardSamples()
    let samples =
      goForward + [Int16](repeating: 0, count: 12_000) + goForward
      + [Int16](repeating: 0, count: 16_000)
    let recognizer = try MoonshineRecognizer(configuration: configuration(.sentence))
    recognizer.tuneResumption(window: 2)
    let events = try stream(samples, to: recognizer)
    let texts = finalTexts(events)
    #expect(texts.count == 2 && !texts.contains { $0.hasPrefix("+") }, "\(texts)")
    for text in texts {
      #expect(normalizedWords(text) == ["go", "forward", "ten", "meters"], "\(texts)")
    }
    let finals = events.filter { $0.isFinal }.map(\.words)
    if finals.count == 2, let second = finals[1].first {
      // Its words are timed in its own speech, after the first sentence's.
      #expect(second.timestamp > Double(goForward.count) / 16_000, "\(second.timestamp)")
    }
  }

  @Test func speechResumingAfterTheEarlyLookDiscardsIt() throws {
    // A pause long enough for the early look (0.1 s) but shorter than the shortest pause: the
    // look's transcript, "...been made.", is shown as a partial result and then dropped.
    let samples = try madeAmiable(pause: 0.2)
    let recognizer = try MoonshineRecognizer(configuration: configuration(.sentence))
    let events = try stream(samples, to: recognizer)
    let finals = events.compactMap { event -> [RecognizedWord]? in
      if case .utterance(let words) = event { words } else { nil }
    }
    let partials = events.compactMap { event -> [RecognizedWord]? in
      if case .partial(let words) = event { words } else { nil }
    }
    #expect(partials.contains { $0.last?.text == "made." }, "\(partials.map { $0.map(\.text) })")
    #expect(finals.count == 1)
    let text = finals.flatMap { $0.map(\.text) }.joined(separator: " ")
    #expect(text.contains("made amiable"), "\(text)")
  }

  @Test func aFileCutIntoPiecesIsNotCutInsideASentence() throws {
    // decodeSegment, as the file path calls it: the piece's utterances end where the rule says.
    let recognizer = try MoonshineRecognizer(configuration: configuration(.sentence))
    let events = try recognizer.decodeSegment(
      madeAmiable(pause: 0.8) + [Int16](repeating: 0, count: 16_000) + goForwardSamples(),
      startingAt: 10)
    let finals = events.compactMap { event -> [RecognizedWord]? in
      if case .utterance(let words) = event { words } else { nil }
    }
    #expect(
      finals.map { normalizedWords($0.map(\.text).joined(separator: " ")) } == [
        ["he", "might", "even", "have", "been", "made", "amiable", "himself"],
        ["go", "forward", "ten", "meters"],
      ])
    #expect(finals.first?.first.map { $0.timestamp >= 10 } == true)
  }

  @Test func aFilePieceTakesTheVerdictsTheReaderMadeWithTheSameDetector() throws {
    let samples = try [Int16](repeating: 0, count: 8_000) + goForwardSamples()
    let settings = configuration(.sentence)
    var segmenter = UtteranceSegmenter(
      minimumPause: 1.5, voiceActivity: try settings.voiceActivity.makeStream())
    #expect(try segmenter.append(samples).isEmpty)
    let speech = try #require(segmenter.finish()?.speech)
    #expect(speech.isSpeech.contains(true))
    let recognizer = try MoonshineRecognizer(configuration: settings)
    let heard = try recognizer.decodeSegment(samples, startingAt: 0)
    #expect(!heard.isEmpty)
    // The reader's verdicts are this detector's: the same words.
    #expect(try recognizer.decodeSegment(samples, startingAt: 0, speech: speech) == heard)
    // They are taken, not heard again: with every window judged quiet, nothing is transcribed.
    var quiet = speech
    quiet.isSpeech = quiet.isSpeech.map { _ in false }
    #expect(try recognizer.decodeSegment(samples, startingAt: 0, speech: quiet) == [])
    // Verdicts from other thresholds, or not covering the piece, are not taken.
    var other = quiet
    other.threshold += 0.1
    #expect(try recognizer.decodeSegment(samples, startingAt: 0, speech: other) == heard)
    var short = quiet
    short.isSpeech.removeLast()
    #expect(try recognizer.decodeSegment(samples, startingAt: 0, speech: short) == heard)
  }

  @Test func aFilePieceGivesTheSameWordsEveryTime() throws {
    // Its transcriptions follow the audio alone, not how long each took.
    let samples = try madeAmiable(pause: 0.8) + goForwardSamples()
    let recognizer = try MoonshineRecognizer(configuration: configuration(.sentence))
    let first = try recognizer.decodeSegment(samples, startingAt: 0)
    for _ in 0..<3 {
      #expect(try recognizer.decodeSegment(samples, startingAt: 0) == first)
    }
    let other = try MoonshineRecognizer(configuration: configuration(.sentence))
    #expect(try other.decodeSegment(samples, startingAt: 0) == first)
  }
}

extension RecognitionEvent {
  /// Whether the event is final words: an utterance or a revision.
  var isFinal: Bool {
    if case .partial = self { false } else { true }
  }
}
