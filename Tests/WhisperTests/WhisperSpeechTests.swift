import Foundation
import LiveTestSupport
import Moonshine
import Recognition
import Testing

@testable import Whisper

/// The Whisper engine on real speech: espeak-ng sentences in German, French and Spanish decoded
/// by the installed model, the language detected, German written as English, and the same words
/// on every decode.
@Suite(.enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"))
struct WhisperSpeechTests {
  static func configuration(_ language: WhisperConfiguration.Language) -> WhisperConfiguration {
    var configuration = WhisperConfiguration()
    configuration.language = language
    configuration.threadsPerRun = 2
    return configuration
  }

  static func audio(
    _ sentence: WhisperTestData.Sentence, in directory: TemporaryDirectory
  ) throws
    -> [Float]
  {
    let file = try WhisperTestData.spoken(sentence, in: directory.url)
    return try WhisperTestData.samples(of: file).map { Float($0) / 32768 }
  }

  static func text(
    _ transcriber: WhisperTranscriber, _ audio: [Float], favouring phrases: [String] = []
  ) throws -> String {
    try audio.withUnsafeBufferPointer {
      try transcriber.transcribe($0, prefix: [], favouring: phrases).text
    }
  }

  @Test(arguments: [WhisperTestData.german, WhisperTestData.french, WhisperTestData.spanish])
  func eachLanguageIsHeardInItsOwnWords(_ sentence: WhisperTestData.Sentence) throws {
    let directory = try TemporaryDirectory()
    let transcriber = try WhisperTranscriber(
      configuration: Self.configuration(.code(sentence.language)))
    let words = WhisperTestData.words(
      try Self.text(transcriber, try Self.audio(sentence, in: directory)))
    for word in sentence.words {
      #expect(words.contains(word), "\(word) in \(words)")
    }
    #expect(transcriber.language?.code == sentence.language)
  }

  @Test func theLanguageIsDetectedOnceAndKeptForTheStreamUntilReset() throws {
    let directory = try TemporaryDirectory()
    let german = try Self.audio(WhisperTestData.german, in: directory)
    let spanish = try Self.audio(WhisperTestData.spanish, in: directory)
    let transcriber = try WhisperTranscriber(configuration: Self.configuration(.automatic))
    let words = WhisperTestData.words(try Self.text(transcriber, german))
    #expect(transcriber.language?.code == "de")
    #expect(words.contains("tisch"), "\(words)")
    // The stream's language stays German: Spanish audio is decoded as German.
    _ = try Self.text(transcriber, spanish)
    #expect(transcriber.language?.code == "de")
    // A new stream detects again.
    transcriber.reset()
    let spanishWords = WhisperTestData.words(try Self.text(transcriber, spanish))
    #expect(transcriber.language?.code == "es")
    #expect(spanishWords.contains("gracias"), "\(spanishWords)")
  }

  @Test func germanIsWrittenAsEnglishWhenTranslating() throws {
    let directory = try TemporaryDirectory()
    let sentence = WhisperTestData.Sentence(
      language: "de", text: "Guten Morgen, ich trinke gerne Kaffee.", words: [])
    var configuration = Self.configuration(.code("de"))
    configuration.translates = true
    let transcriber = try WhisperTranscriber(configuration: configuration)
    let words = WhisperTestData.words(
      try Self.text(transcriber, try Self.audio(sentence, in: directory)))
    #expect(words.contains("good") && words.contains("morning"), "\(words)")
    #expect(!words.contains("guten") && !words.contains("morgen"), "\(words)")
  }

  @Test func theSameAudioGivesTheSameWordsWhateverWasDecodedBefore() throws {
    // whisper.cpp decoded differently in a state that had decoded (or detected) before; each
    // decode now has a fresh one.
    let directory = try TemporaryDirectory()
    let french = try Self.audio(WhisperTestData.french, in: directory)
    let german = try Self.audio(WhisperTestData.german, in: directory)
    let first = try WhisperTranscriber(configuration: Self.configuration(.code("fr")))
    let alone = try Self.text(first, french)
    let other = try WhisperTranscriber(configuration: Self.configuration(.code("fr")))
    _ = try Self.text(other, german)
    _ = try german.withUnsafeBufferPointer {
      try other.model.detectLanguage($0, threads: 2)
    }
    #expect(try Self.text(other, french) == alone)
    #expect(try Self.text(first, french) == alone)
  }

  @Test func theRecognizerCutsAStreamIntoUtterancesForWhisper() throws {
    let directory = try TemporaryDirectory()
    let file = try WhisperTestData.spoken(WhisperTestData.spanish, in: directory.url, silence: 1)
    let samples = try WhisperTestData.samples(of: file)
    var configuration = Self.configuration(.code("es"))
    configuration.segmentation.voiceActivity = .energy
    configuration.segmentation.reportsPartialResults = false
    let recognizer = try WhisperRecognizer.make(configuration)
    var events: [RecognitionEvent] = []
    for start in stride(from: 0, to: samples.count, by: 1_600) {
      let chunk = Array(samples[start..<min(samples.count, start + 1_600)])
      events += try chunk.withUnsafeBufferPointer { try recognizer.process($0) }
    }
    if let words = try recognizer.finish() { events.append(.utterance(words)) }
    let utterances = events.compactMap { event -> [RecognizedWord]? in
      if case let .utterance(words) = event, !words.isEmpty { return words }
      return nil
    }
    #expect(utterances.count == 1)
    let words = WhisperTestData.words(utterances.flatMap { $0 }.map(\.text).joined(separator: " "))
    #expect(words.contains("gracias") && words.contains("luego"), "\(words)")
    // The words lie in the speech, which starts after a second of silence.
    let first = try #require(utterances.first?.first)
    #expect(first.timestamp >= 0.7 && first.timestamp < 1.5, "\(first.timestamp)")
    // Each word's time is whisper.cpp's own: in order, each ending after it starts, all within
    // the audio.
    let heard = utterances.flatMap { $0 }
    let length = Double(samples.count) / 16_000
    #expect(zip(heard, heard.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    #expect(heard.allSatisfy { $0.duration >= 0 && $0.timestamp + $0.duration <= length })
  }

  /// Ordinary English sentences whose words sound like names of a household's hotword list
  /// (meal/Miele, sofa/Saoirse, boss/Bose, crane/Grainne): with the list as hotwords, Whisper's
  /// words are those it hears without it. The list as a prompt alone made Whisper base write
  /// lists and loops for such sentences ("Niobhan, Haibercrain, Niobhan, …" for "Kneel down by
  /// the crane."); the transcriber keeps such a decode only when it reads as the same speech.
  @Test func ordinaryWordsThatSoundLikeANameStayAsTheyAre() throws {
    let names = [
      "Kallax", "Siobhan", "Aoife", "Bhriain", "Tchaikovsky", "Velux", "Saoirse", "Nanoleaf",
      "Tado", "Niamh", "Oisin", "Besta", "Roborock", "Grainne", "Rachmaninoff", "Sonos", "Nuki",
      "Caoimhe", "Monstera", "Tadhg", "Xiaoling", "Eufy", "Dvorak", "Meross", "Wojciech", "Govee",
      "Ciaran", "Somfy", "Padraig", "Sibelius", "Bose", "Tradfri", "Miele",
    ]
    let directory = try TemporaryDirectory()
    let transcriber = try WhisperTranscriber(configuration: Self.configuration(.code("en")))
    for text in [
      "Cook a meal for the kids.", "Put the sofa in the living room.", "Ask the boss about it.",
      "Kneel down by the crane.",
    ] {
      let sentence = WhisperTestData.Sentence(language: "en", text: text, words: [])
      let audio = try Self.audio(sentence, in: directory)
      let plain = try Self.text(transcriber, audio)
      let favoured = try Self.text(transcriber, audio, favouring: names)
      #expect(
        WhisperTranscriber.words(of: favoured) == WhisperTranscriber.words(of: plain),
        "\(text): \(plain) → \(favoured)")
    }
  }

  @Test func theModelIsSharedByEveryDecoder() throws {
    let one = try WhisperTranscriber(configuration: Self.configuration(.code("de")))
    let two = try WhisperTranscriber(configuration: Self.configuration(.code("fr")))
    #expect(one.model === two.model)
    #expect(one.model.isMultilingual)
  }
}

/// What the engine says when it is not (fully) installed.
@Suite(.enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"))
struct WhisperInstallTests {
  @Test func aMissingModelFileIsNamed() throws {
    var configuration = WhisperConfiguration(
      modelFile: URL(fileURLWithPath: "/nonexistent/ggml-base.bin"))
    configuration.language = .code("de")
    #expect(
      throws: RecognitionFailure.runtimeUnavailable(
        engine: "Whisper", reason: "no model at /nonexistent/ggml-base.bin")
    ) {
      try configuration.validate()
    }
  }

  @Test func aLibraryNamedInTheEnvironmentThatIsNotThereIsReported() throws {
    #expect(
      throws: RecognitionFailure.runtimeUnavailable(
        engine: "Whisper", reason: "no such file: /nonexistent/libwhisper.so.1")
    ) {
      try WhisperRuntime.open(
        nil,
        environment: [WhisperRuntime.libraryEnvironmentVariable: "/nonexistent/libwhisper.so.1"])
    }
  }

  @Test func theLanguagesAreWhispersWithEnglishFirst() throws {
    try WhisperRuntime.open(nil)
    let languages = WhisperRuntime.languages
    #expect(languages.count >= 99)
    #expect(languages.first?.code == "en")
    #expect(WhisperRuntime.language("de")?.name == "german")
    #expect(WhisperRuntime.language("German")?.code == "de")
    #expect(WhisperRuntime.language("xx") == nil)
  }
}
