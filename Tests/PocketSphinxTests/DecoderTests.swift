import Foundation
import LiveTestSupport
import Recognition
import Synchronization
import Testing

@testable import PocketSphinx

@Suite(
  .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
struct DecoderTests {
  @Test func goForwardDecodesToGoForwardTenMeters() throws {
    let decoder = try Decoder(configuration: DecoderConfiguration())
    let events = try decode(try samples(ofRaw: SpeechTestData.goForward), with: decoder)
    #expect(utteranceWords(events) == ["go", "forward", "ten", "meters"])
    #expect(events.contains { if case .partial = $0 { true } else { false } })
  }

  @Test func longUtterancesAreEndedEarly() throws {
    var configuration = DecoderConfiguration()
    configuration.maximumUtteranceDuration = 1
    let decoder = try Decoder(configuration: configuration)
    let events = try decode(try samples(ofRaw: SpeechTestData.goForward), with: decoder)
    let utterances = events.filter { if case .utterance = $0 { true } else { false } }
    #expect(utterances.count >= 2)
  }

  @Test func corruptLanguageModelIsModelCorrupt() throws {
    let directory = try TemporaryDirectory()
    let lm = directory.url.appendingPathComponent("broken.lm.bin")
    try Data("not a language model".utf8).write(to: lm)
    let error = #expect(throws: RecognitionFailure.self) {
      try Decoder(configuration: DecoderConfiguration(search: .languageModel(lm)))
    }
    guard case .modelCorrupt = error else {
      Issue.record("expected modelCorrupt, got \(String(describing: error))")
      return
    }
  }

  @Test func partialResultsComeAtLeastEvery200MillisecondsOfSpeech() throws {
    let decoder = try Decoder(configuration: DecoderConfiguration())
    let samples = try samples(ofRaw: SpeechTestData.goForward)
    // 50 ms at a time, as the microphone delivers; note how much audio went in before each event.
    var fed = 0
    var partialsAt: [Int] = []
    var utteranceAt: Int?
    for start in stride(from: 0, to: samples.count, by: 800) {
      let chunk = samples[start..<min(start + 800, samples.count)]
      fed += chunk.count
      for event in try chunk.withUnsafeBufferPointer({ try decoder.process($0) }) {
        switch event {
        case .partial: partialsAt.append(fed)
        case .utterance, .revision: utteranceAt = utteranceAt ?? fed
        }
      }
    }
    let end = try #require(utteranceAt)
    let during = partialsAt.filter { $0 < end }
    #expect(during.count >= 5)
    for (earlier, later) in zip(during, during.dropFirst()) {
      #expect(later - earlier <= 3200, "partials \(earlier) and \(later) samples in")
    }
  }

  @Test func aLongerEndOfUtteranceSilenceKeepsAShortPauseInOneUtterance() throws {
    let goForward = try samples(ofRaw: SpeechTestData.goForward)
    // Two copies with 0.4 s of low noise between them: with goforward.raw's own quiet at its end
    // and start ("go" starts at 0.46 s), a pause of more than 0.5 s and well under 2 s.
    let pause = (0..<6400).map { Int16(($0 * 7919) % 41) - 20 }
    let twice = goForward + pause + goForward
    func utterances(silence: TimeInterval) throws -> Int {
      var configuration = DecoderConfiguration()
      configuration.endOfUtteranceSilence = silence
      let events = try decode(twice, with: Decoder(configuration: configuration))
      return events.filter { if case .utterance(let words) = $0 { !words.isEmpty } else { false } }
        .count
    }
    #expect(try utterances(silence: 0.5) == 2)
    #expect(try utterances(silence: 2) == 1)
  }

  @Test func theSameAudioDecodesToTheSameUtterancesHoweverItIsCut() throws {
    let goForward = try samples(ofRaw: SpeechTestData.goForward)
    // Two utterances with a pause between them long enough to end the first.
    let pause = (0..<12_800).map { Int16(($0 * 7919) % 41) - 20 }
    let twice = goForward + pause + goForward
    let decoder = try Decoder(configuration: DecoderConfiguration())
    func utterances(chunk: Int) throws -> [[RecognizedWord]] {
      try decoder.startNewStream()
      return try decode(twice, with: decoder, chunk: chunk).compactMap {
        if case .utterance(let words) = $0, !words.isEmpty { words } else { nil }
      }
    }
    let reference = try utterances(chunk: 2048)
    #expect(reference.map { $0.map(\.text) } == [goForwardWords, goForwardWords])
    // Where the voice activity is looked at no longer depends on the chunks: the same
    // utterances, the same words; their times agree to pocketsphinx's frame (10 ms: how much
    // of a frame it holds back when an utterance ends depends on the last chunk).
    for chunk in [160, 333, 800, 1600, 4000, 7777, twice.count] {
      let other = try utterances(chunk: chunk)
      #expect(other.map { $0.map(\.text) } == reference.map { $0.map(\.text) }, "\(chunk)")
      let times = zip(other.joined(), reference.joined()).map { abs($0.timestamp - $1.timestamp) }
      #expect(times.allSatisfy { $0 <= 0.011 }, "chunks of \(chunk) samples: \(times)")
    }
  }

  @Test func malformedGrammarIsInvalidWithTheParsersErrorAndLine() throws {
    let directory = try TemporaryDirectory()
    let grammar = directory.url.appendingPathComponent("broken.gram")
    try Data("#JSGF V1.0;\ngrammar test;\npublic <cmd> = go { forward ;\n".utf8).write(to: grammar)
    let error = #expect(throws: RecognitionFailure.self) {
      try Decoder(configuration: DecoderConfiguration(search: .grammar(grammar)))
    }
    guard case .grammarInvalid(let path, let reason) = error else {
      Issue.record("expected grammarInvalid, got \(String(describing: error))")
      return
    }
    #expect(path == grammar.path)
    #expect(reason.contains("syntax error at line 3"))
  }

  @Test func grammarWordMissingFromTheDictionaryIsNamed() throws {
    let directory = try TemporaryDirectory()
    let grammar = directory.url.appendingPathComponent("words.gram")
    try Data("#JSGF V1.0;\ngrammar test;\npublic <cmd> = go flurbix;\n".utf8).write(to: grammar)
    #expect(
      throws: RecognitionFailure.wordNotInDictionary(
        word: "flurbix", dictionary: DecoderConfiguration.defaultDictionary.path)
    ) {
      try Decoder(configuration: DecoderConfiguration(search: .grammar(grammar)))
    }
  }

  @Test func keyphraseWordMissingFromTheDictionaryIsNamed() throws {
    #expect(
      throws: RecognitionFailure.wordNotInDictionary(
        word: "flurbix", dictionary: DecoderConfiguration.defaultDictionary.path)
    ) {
      try Decoder(configuration: DecoderConfiguration(search: .keyphrase("go flurbix")))
    }
  }

  @Test func junkDictionaryIsInvalidNamingTheFile() throws {
    let directory = try TemporaryDirectory()
    let dictionary = directory.url.appendingPathComponent("junk.dict")
    try Data("hello world junk\nfoo bar\n".utf8).write(to: dictionary)
    let error = #expect(throws: RecognitionFailure.self) {
      try Decoder(configuration: DecoderConfiguration(dictionary: dictionary))
    }
    guard case .dictionaryInvalid(let path, let reason) = error else {
      Issue.record("expected dictionaryInvalid, got \(String(describing: error))")
      return
    }
    #expect(path == dictionary.path)
    #expect(reason.contains("Line 1"))
  }

  @Test func acousticModelGivenWithAGrammarOrKeyphraseIsUsed() throws {
    let grammar = SpeechTestData.directory.appendingPathComponent("cards/cards.gram")
    let elsewhere = URL(fileURLWithPath: "/nonexistent/hmm")
    for search in [DecoderConfiguration.Search.grammar(grammar), .keyphrase("forward")] {
      #expect(throws: RecognitionFailure.modelFileNotFound(.acousticModel, path: elsewhere.path)) {
        try Decoder(configuration: DecoderConfiguration(acousticModel: elsewhere, search: search))
      }
    }
    // The default model's own directory, named explicitly, decodes as before.
    let decoder = try Decoder(
      configuration: DecoderConfiguration(
        acousticModel: DecoderConfiguration.defaultAcousticModel, search: .keyphrase("forward")))
    let events = try decode(try samples(ofRaw: SpeechTestData.goForward), with: decoder)
    #expect(utteranceWords(events).contains("forward"))
  }

  @Test func fillerAndVariantWordsAreCleanedUp() {
    #expect(Decoder.baseWord("forward(2)") == "forward")
    #expect(Decoder.baseWord("(2)") == "(2)")
    #expect(Decoder.baseWord("ten") == "ten")
    #expect(Decoder.isFiller("<sil>") && Decoder.isFiller("[NOISE]") && Decoder.isFiller("</s>"))
    #expect(!Decoder.isFiller("go"))
  }
}

/// The phrase list a server's client sends becomes a grammar: checking it must take time in
/// proportion to its length, and stop when nobody wants it any more.
struct PhraseListTests {
  @Test func checkingSixtyFourThousandDistinctPhrasesTakesUnderTwoSeconds() throws {
    // 64,000 distinct two-word phrases (1.3 MB), as a hostile client sent: with a membership
    // check in a growing array this took minutes.
    let words = (0..<256).map { "w\($0)" }
    let phrases = (0..<64_000).map { "\(words[$0 / 256]) \(words[$0 % 256])" } + ["W0, w0!"]
    let start = ContinuousClock.now
    let checked = try #require(Decoder.usablePhrases(phrases, knows: { $0 != "w3" }))
    #expect(ContinuousClock.now - start < .seconds(2))
    // "w3 …" (256 phrases) and "… w3" (250) are left out, the last one is "w0 w0" again.
    #expect(checked.usable.count == 64_000 - (256 + 250 - 1))
    #expect(checked.usable.prefix(2) == ["w0 w0", "w0 w1"])
    #expect(checked.unknown == "w3")
  }

  @Test func checkingStopsOnceCancelled() {
    let phrases = Array(repeating: "go forward", count: 10_000)
    let asked = Mutex(0)
    let checked = Decoder.usablePhrases(
      phrases, knows: { _ in true },
      isCancelled: {
        asked.withLock {
          $0 += 1
          return $0 > 2
        }
      })
    #expect(checked == nil)
    #expect(asked.withLock { $0 } == 3)
  }
}
