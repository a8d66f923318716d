import Foundation
import LiveTestSupport
import Testing

@testable import Moonshine

/// Whether espeak-ng and sox are here to speak the commands (`scripts/install-dependencies.sh`
/// installs both).
let isSpeechSynthesisInstalled = ["/usr/bin/espeak-ng", "/usr/bin/sox"].allSatisfy {
  FileManager.default.isExecutableFile(atPath: $0)
}

/// Hotwords on real audio: espeak-ng speaks commands with names a general model knows least,
/// and the model transcribes each whole file with and without the names as hotwords.
@Suite(
  .enabled(
    if: (isModelInstalled && isSpeechSynthesisInstalled)
      || MoonshineTestData.testsRun
        && ProcessInfo.processInfo.environment["CI"] != nil,
    "needs the Moonshine model, espeak-ng and sox (./scripts/install-dependencies.sh)"))
struct HotwordSpeechTests {
  /// Commands and the names in them, said by espeak-ng's en-us voice.
  static let commands: [(text: String, names: [String])] = [
    ("Turn on the Kallax lamp in Siobhan's room.", ["Kallax", "Siobhan"]),
    ("Call Aoife Ni Bhriain on her mobile.", ["Aoife", "Bhriain"]),
    ("Play the playlist called Tchaikovsky nocturnes.", ["Tchaikovsky"]),
    ("Dim the Nanoleaf panels in the study.", ["Nanoleaf"]),
    ("Start the Roborock in Grainne's bedroom.", ["Roborock", "Grainne"]),
    ("Play Rachmaninoff on the Sonos in the kitchen.", ["Rachmaninoff", "Sonos"]),
    ("Show the Eufy camera in the driveway.", ["Eufy"]),
    ("Play Dvorak's New World symphony.", ["Dvorak"]),
    ("Switch the Meross plug in the garage off.", ["Meross"]),
    ("Turn on the Govee lights in Ciaran's room.", ["Govee", "Ciaran"]),
    ("Play the Sibelius playlist on the Bose speaker.", ["Sibelius", "Bose"]),
  ]
  /// Commands with none of the names.
  static let plainCommands = [
    "Turn on the lamp in the kitchen.",
    "What is the weather like tomorrow?",
    "Set a timer for ten minutes.",
    "Play some music in the living room.",
    "Call my sister on her mobile.",
    "Open the blinds in the bedroom.",
  ]
  /// Every name, and more that are not said, as a household's list would hold them.
  static let hotwords =
    commands.flatMap(\.names) + [
      "Velux", "Saoirse", "Tado", "Niamh", "Oisin", "Besta", "Nuki", "Caoimhe", "Monstera",
      "Tadhg", "Xiaoling", "Wojciech", "Somfy", "Padraig", "Tradfri", "Miele",
    ]

  /// The words of a transcript, lower case, without punctuation and possessive `'s`.
  static func words(_ text: String) -> Set<String> {
    Set(
      text.lowercased().split(whereSeparator: \.isWhitespace).map { word in
        var word = word.trimmingCharacters(in: .punctuationCharacters)
        if word.hasSuffix("'s") { word.removeLast(2) }
        return word
      })
  }

  /// Speaks `text` into a 16 kHz mono WAV and returns its samples: the same samples every time
  /// (sox's dither, on by default, gave every run slightly different ones, and with them, now
  /// and then, other words).
  static func spoken(_ text: String, in directory: TemporaryDirectory) throws -> [Float] {
    let voice = directory.url.appendingPathComponent("voice.wav")
    let file = directory.url.appendingPathComponent("speech.wav")
    try runCommand("/usr/bin/espeak-ng", ["-v", "en-us", "-s", "150", "-w", voice.path, text])
    try runSox([voice.path, "-r", "16000", "-c", "1", "-b", "16", file.path])
    return floats(try samples(ofWAV: file))
  }

  static func transcript(
    _ samples: [Float], _ model: MoonshineModel, _ hotwords: MoonshineHotwords?
  ) throws -> String {
    try samples.withUnsafeBufferPointer { try model.transcribe($0, hotwords: hotwords).text }
  }

  @Test func namesComeOutRightWithHotwordsAndNoNameIsAddedWhereNoneWasSaid() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let hotwords = model.hotwords(Self.hotwords)
    let directory = try TemporaryDirectory()
    var rightWithout = 0
    var rightWith = 0
    var names = 0
    let everyName = Set(Self.hotwords.map { $0.lowercased() })
    for command in Self.commands {
      let samples = try Self.spoken(command.text, in: directory)
      let plain = Self.words(try Self.transcript(samples, model, nil))
      let biased = Self.words(try Self.transcript(samples, model, hotwords))
      let said = Set(command.names.map { $0.lowercased() })
      names += said.count
      rightWithout += said.intersection(plain).count
      rightWith += said.intersection(biased).count
      // A name heard that was not said is a name the bonus forced in.
      let added = biased.intersection(everyName).subtracting(said).subtracting(plain)
      #expect(added.isEmpty, "\(command.text) → \(biased.sorted())")
    }
    // Measured (espeak-ng 1.51, audio without dither, 2026-11-28): 0 of 17 without, 13 with;
    // 12 since no name starts inside a word the model is writing (2026-11-29: Rachmaninoff,
    // which began where the model wrote "Playw…", went with "Cook a meal" → "Coca Miele").
    #expect(rightWithout <= 2, "names right without hotwords: \(rightWithout) of \(names)")
    #expect(rightWith >= 10, "names right with hotwords: \(rightWith) of \(names)")

    for text in Self.plainCommands {
      let samples = try Self.spoken(text, in: directory)
      let plain = try Self.transcript(samples, model, nil)
      let biased = try Self.transcript(samples, model, hotwords)
      #expect(biased == plain, "\(text)")
      #expect(Self.words(biased).intersection(everyName).isEmpty, "\(biased)")
    }
  }

  /// Ordinary sentences whose words sound like names of the list (meal/Miele, sofa/Saoirse,
  /// boss/Bose, …): Benchmarks/hotwords found them with a dictionary and espeak-ng's phonemes.
  static let soundAlikes = [
    "Cook a meal for the kids.", "Drain the pasta in the sink.", "Ask the boss about it.",
    "Play the monster movie.", "Put the sofa in the living room.", "Buy a taco for lunch.",
    "The grain is in the barn.", "This chair is very comfy.", "Turn up the cozy lights.",
    "Kneel down by the crane.",
  ]

  /// With every name as a hotword, sentences of ordinary words that sound like names come out
  /// as without hotwords. "Cook a meal for the kids." came out as "Coca Miele for the kids."
  /// (without hotwords "Coca-meal…") until the bonus stopped starting a name where the model goes
  /// on with the word it is writing.
  @Test func ordinaryWordsThatSoundLikeANameStayAsTheyAre() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let hotwords = model.hotwords(Self.hotwords)
    let directory = try TemporaryDirectory()
    for text in Self.soundAlikes {
      let samples = try Self.spoken(text, in: directory)
      let plain = try Self.transcript(samples, model, nil)
      let biased = try Self.transcript(samples, model, hotwords)
      #expect(biased == plain, "\(text): \(plain) → \(biased)")
    }
  }

  /// A synthesizer's audio starts with the first sound, no silence before it: the model must
  /// still hear it (it ended the text at once for these two before a lead-in of silence was put
  /// before such audio).
  @Test func audioThatStartsInTheMiddleOfASoundIsHeard() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let directory = try TemporaryDirectory()
    for (text, ending) in [
      ("Lock the Nuki lock on the front door.", ["front", "door"]),
      ("Ask Wojciech to feed the cat.", ["feed", "the", "cat"]),
    ] {
      let samples = try Self.spoken(text, in: directory)
      let silent = samples.prefix(320).allSatisfy { abs($0) < 0.01 }
      #expect(!silent, "espeak-ng's audio now starts with silence: the test needs another text")
      let heard = normalizedWords(try Self.transcript(samples, model, nil))
      #expect(Array(heard.suffix(ending.count)) == ending, "\(text) → \(heard)")
    }
  }

  /// As espeak-ng says it, this command decodes to nothing without hotwords: the end of the
  /// text is the single likeliest first token (0.28), words together far likelier. With
  /// hotwords it gets a second look with more silence before it, and the name comes out.
  @Test func aCommandTheModelWouldEndAtOnceIsHeardWithHotwords() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let directory = try TemporaryDirectory()
    let samples = try Self.spoken(
      "Set the Tado thermostat in Niamh's office to twenty degrees.", in: directory)
    let biased = Self.words(try Self.transcript(samples, model, model.hotwords(Self.hotwords)))
    #expect(biased.isSuperset(of: ["tado", "thermostat", "degrees"]), "\(biased.sorted())")
  }

  /// Beeps and chirps whose first step also ends the text against words (the end likeliest,
  /// words likelier together) stay nothing with hotwords: the second look runs and finds
  /// nothing either. (Refusing the end at the first step instead made such sounds "Hmm." and
  /// "You".)
  @Test func beepsStayNothingWithHotwordsAfterASecondLook() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let hotwords = model.hotwords(Self.hotwords)
    for (seconds, frequency, sweeps) in [
      (0.2, 300.0, false), (0.2, 300.0, true), (0.2, 440.0, true), (0.3, 300.0, false),
      (0.3, 300.0, true), (0.3, 440.0, true), (0.4, 300.0, true), (0.5, 300.0, true),
    ] {
      // A tone (or a rising sweep) with 50 ms edges and 0.1 s of silence either side.
      let count = Int(seconds * 16_000)
      let sound = (0..<count).map { index -> Float in
        let time = Double(index) / 16_000
        let phase = sweeps ? frequency * (time + time * time) : frequency * time
        let edge = min(1, min(Double(index), Double(count - 1 - index)) / Double(count - 1) * 20)
        return Float(0.2 * sin(2 * .pi * phase) * edge)
      }
      let silence = [Float](repeating: 0, count: 1600)
      let samples = silence + sound + silence
      let label = "\(seconds) s at \(frequency) Hz\(sweeps ? ", rising" : "")"
      let plain = try Self.transcript(samples, model, nil)
      #expect(plain.isEmpty, "\(label): \(plain)")
      let biased = try samples.withUnsafeBufferPointer {
        try model.transcribe($0, hotwords: hotwords)
      }
      #expect(biased.text.isEmpty, "\(label): \(biased.text)")
      // One step that ended the text, then the second look's.
      #expect(biased.decoderSteps == 2, "\(label): \(biased.decoderSteps) steps")
    }
  }

  /// A recognizer streaming the commands with partial results: each look reuses the last one's
  /// tokens as a prefix, and phrases taken back cut the decoder's state inside or after it. The
  /// final words are the same as one transcription of the utterance gives.
  @Test func streamingWithPartialResultsEndsWithTheNames() throws {
    var configuration = installedConfiguration
    configuration.partialResults = .fast
    configuration.hotwords = Self.hotwords
    let recognizer = try MoonshineRecognizer(configuration: configuration)
    let directory = try TemporaryDirectory()
    var right = 0
    var names = 0
    for command in Self.commands.prefix(6) {
      let samples = try Self.spoken(command.text, in: directory).map {
        Int16(max(-32_768, min(32_767, $0 * 32_768)))
      }
      // A second of silence after the command ends its utterance.
      let events = try stream(samples + [Int16](repeating: 0, count: 16_000), to: recognizer)
      try recognizer.reset()
      let partials = events.filter { if case .partial = $0 { true } else { false } }
      #expect(!partials.isEmpty, "\(command.text)")
      let heard = Self.words(finalText(events))
      let said = Set(command.names.map { $0.lowercased() })
      names += said.count
      right += said.intersection(heard).count
    }
    // Measured (2026-11-27): 7 of 10, as the same commands transcribed whole; 6 since no name
    // starts inside a word (2026-11-29: Rachmaninoff).
    #expect(right >= 5, "names right while streaming: \(right) of \(names)")
  }

  @Test func anEmptyListDecodesExactlyAsNoList() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    let samples = floats(try goForwardSamples())
    let plain = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
    let empty = try samples.withUnsafeBufferPointer {
      try model.transcribe($0, hotwords: model.hotwords([]))
    }
    #expect(empty.tokens == plain.tokens)
    #expect(empty.probabilities == plain.probabilities)
    #expect(empty.decoderSteps == plain.decoderSteps)
  }
}
