import Foundation
import Whisper

/// Whisper as `./scripts/install-dependencies.sh --whisper` installs it, and speech in other
/// languages than English spoken by espeak-ng, for the tests that run the real model.
public enum WhisperTestData {
  /// Whether this build has the Whisper engine and its library and model are installed: what
  /// `transcribe` checks before decoding another language.
  public static let isInstalled = WhisperRuntime.isInstalled()

  /// Whether the Whisper tests run: when it is installed, and always on CI (`CI` set, where
  /// `.ci/run` installs it), where a missing install must fail them rather than skip them.
  public static let testsRun = isInstalled || ProcessInfo.processInfo.environment["CI"] != nil

  /// A sentence in a language, and words Whisper base reliably hears in espeak-ng's voice of it
  /// (checked with the installed model: espeak-ng's voices are far from human speech, and base
  /// mishears many of their words).
  public struct Sentence: Sendable {
    /// espeak-ng's voice and Whisper's code.
    public var language: String
    /// What espeak-ng says.
    public var text: String
    /// Words (lower case, without punctuation) the transcript must have.
    public var words: [String]

    /// Creates a sentence.
    public init(language: String, text: String, words: [String]) {
      self.language = language
      self.text = text
      self.words = words
    }
  }

  /// One sentence each in German, French and Spanish.
  public static let german = Sentence(
    language: "de", text: "Das Buch liegt auf dem Tisch.",
    words: ["auf", "dem", "tisch"])
  public static let french = Sentence(
    language: "fr", text: "Je voudrais un café, s'il vous plaît.", words: ["café", "vous"])
  public static let spanish = Sentence(
    language: "es", text: "Muchas gracias, hasta luego.",
    words: ["muchas", "gracias", "hasta", "luego"])

  /// `sentence` spoken by espeak-ng at 130 words a minute, as a 16 kHz mono 16-bit WAV file in
  /// `directory`, with `silence` seconds of silence before and after it.
  /// The file is named `name`, or after the language.
  public static func spoken(
    _ sentence: Sentence, in directory: URL, silence: Double = 0.5, name: String? = nil
  ) throws -> URL {
    let name = name ?? sentence.language
    let voice = directory.appendingPathComponent("\(name)-voice.wav")
    let file = directory.appendingPathComponent("\(name).wav")
    try runCommand(
      "/usr/bin/espeak-ng", ["-v", sentence.language, "-s", "130", "-w", voice.path, sentence.text])
    try runSox([
      voice.path, "-r", "16000", "-c", "1", "-b", "16", file.path, "pad", "\(silence)",
      "\(silence)",
    ])
    return file
  }

  /// The samples of a 16 kHz mono 16-bit WAV file (sox reads it).
  public static func samples(of file: URL) throws -> [Int16] {
    let raw = file.deletingPathExtension().appendingPathExtension("raw")
    try runSox([
      file.path, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "16000", raw.path,
    ])
    let data = try Data(contentsOf: raw)
    return stride(from: 0, to: data.count - 1, by: 2).map {
      Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
    }
  }

  /// The words of a transcript: lower case, punctuation dropped.
  public static func words(_ text: String) -> [String] {
    text.lowercased().split(whereSeparator: { $0.isWhitespace })
      .map { String($0.filter { $0.isLetter || $0.isNumber || $0 == "'" }) }
      .filter { !$0.isEmpty }
  }
}
